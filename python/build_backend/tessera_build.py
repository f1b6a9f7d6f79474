"""setuptools' build backend, run on a copy of this folder in a temporary one.

setuptools writes `build/` and `tessera.egg-info/` beside pyproject.toml while it builds, so
`pip install ./python` left both in the checkout. Each hook here copies the package's folder into a
temporary folder, runs setuptools' hook there and removes the copy: the wheel, the sdist and the
metadata come out where pip asks, and the checkout is left as it was. An editable install
(`pip install -e`) needs the folder itself, and is setuptools' own.
"""
import functools
import os
import shutil
import tempfile

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403 (the hooks not wrapped below: editable installs)

_LEFT_OUT = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".*")


def _in_a_copy(hook):
    @functools.wraps(hook)
    def run(*args, **kwargs):
        source = os.getcwd()
        # Output folders pip names may be relative to the source folder: made absolute before leaving it.
        args = [os.path.abspath(arg) if index == 0 and isinstance(arg, str) else arg for index, arg in enumerate(args)]
        with tempfile.TemporaryDirectory(prefix="tessera-build-") as temporary:
            copy = os.path.join(temporary, "python")
            shutil.copytree(source, copy, ignore=_LEFT_OUT)
            os.chdir(copy)
            try:
                return hook(*args, **kwargs)
            finally:
                os.chdir(source)

    return run


get_requires_for_build_wheel = _in_a_copy(_setuptools.get_requires_for_build_wheel)
get_requires_for_build_sdist = _in_a_copy(_setuptools.get_requires_for_build_sdist)
prepare_metadata_for_build_wheel = _in_a_copy(_setuptools.prepare_metadata_for_build_wheel)
build_wheel = _in_a_copy(_setuptools.build_wheel)
build_sdist = _in_a_copy(_setuptools.build_sdist)
