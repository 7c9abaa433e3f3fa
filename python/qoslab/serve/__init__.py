"""``qoslab serve``: a local web page to edit a scenario, paste IOS configuration, compare
policies side by side and see the results change as you type.

``workbench`` runs what the page asks for and places its errors; ``app`` is the Starlette
application that serves the page and the runs, on the loopback interface only.
"""
