"""The one guarded writer every command writes through: run folders, sweep stores, advice,
reproductions, packet captures, traces, plots and reports.

- Nothing is written through a symbolic link: the folder named is opened without following a
  link at its last component, and everything in it is reached from that folder's descriptor
  (:class:`Folder`).
- Nothing is replaced or deleted that qoslab did not write: each folder keeps a ledger of the
  files written into it with their contents' SHA-256 (``ledger``), and a file is replaced or
  removed only when the ledger knows it as it is.
- Every file is written whole and renamed into place; a folder of results is replaced as a
  whole in one step (:func:`replace_folder`); staging entries of processes that ended are
  removed by the next writer (``staging``).
- A destination is checked — writable, room enough, nothing foreign in the way — before the
  work that fills it starts (:func:`check_folder`, :meth:`Folder.check_room`).
"""

from qoslab.output.errors import OutputError
from qoslab.output.folder import Folder
from qoslab.output.named_file import check_file, write_file
from qoslab.output.names import folder_name
from qoslab.output.replace import NewFolder, check_folder, replace_folder
from qoslab.output.staging import PREFIX as STAGING_PREFIX

__all__ = [
    "STAGING_PREFIX",
    "Folder",
    "NewFolder",
    "OutputError",
    "check_file",
    "check_folder",
    "folder_name",
    "replace_folder",
    "write_file",
]
