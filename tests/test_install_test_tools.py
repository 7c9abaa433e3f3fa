"""``scripts/install-test-tools``, run with stand-ins for ``id`` and ``apt-get`` on a PATH of
its own: it installs what is missing as root, says which tests will skip otherwise, and never
fails."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "install-test-tools"

FAKE_APT_GET = """#!/bin/sh
echo "$@" >> "{log}"
for package in "$@"; do
    case "$package" in
        -*|install) ;;
        chromium-driver) printf '#!/bin/sh\\n' > "{bin}/chromedriver" &&
            /bin/chmod +x "{bin}/chromedriver" ;;
        *) printf '#!/bin/sh\\n' > "{bin}/$package" && /bin/chmod +x "{bin}/$package" ;;
    esac
done
"""


def tools(tmp_path: Path, *, uid: int, apt_get: bool) -> Path:
    """A folder of commands for the PATH: ``id`` answering ``uid``, and a stand-in
    ``apt-get`` that logs its arguments and makes each package's command (``chromedriver``
    for ``chromium-driver``)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (folder / "id").chmod(0o755)
    if apt_get:
        script = FAKE_APT_GET.format(log=tmp_path / "apt.log", bin=folder)
        (folder / "apt-get").write_text(script)
        (folder / "apt-get").chmod(0o755)
    return folder


def install(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", str(SCRIPT)],
        env={"PATH": str(folder)},
        capture_output=True,
        text=True,
        check=False,
    )


def test_root_with_apt_get_installs_what_is_missing_once(tmp_path):
    folder = tools(tmp_path, uid=0, apt_get=True)
    done = install(folder)
    assert done.returncode == 0
    assert (tmp_path / "apt.log").read_text() == "install -y -q chromium chromium-driver tshark\n"
    assert (folder / "chromium").exists()
    assert (folder / "chromedriver").exists()
    assert (folder / "tshark").exists()
    assert "will be skipped" not in done.stdout
    again = install(folder)
    assert again.returncode == 0
    assert again.stdout == ""
    assert (tmp_path / "apt.log").read_text() == "install -y -q chromium chromium-driver tshark\n"


def test_without_root_it_names_the_tests_that_will_skip(tmp_path):
    folder = tools(tmp_path, uid=1000, apt_get=True)
    done = install(folder)
    assert done.returncode == 0
    assert not (tmp_path / "apt.log").exists()
    assert "no chromium: the report test in a browser will be skipped" in done.stdout
    assert (
        "no chromedriver: the tests that click the interactive pages will be skipped" in done.stdout
    )
    assert "no tshark: the tests that read packet captures with it will be skipped" in done.stdout


def test_without_apt_get_it_names_the_tests_that_will_skip(tmp_path):
    done = install(tools(tmp_path, uid=0, apt_get=False))
    assert done.returncode == 0
    assert "(install the Debian package chromium)" in done.stdout
    assert "(install the Debian package chromium-driver)" in done.stdout
    assert "(install the Debian package tshark)" in done.stdout
