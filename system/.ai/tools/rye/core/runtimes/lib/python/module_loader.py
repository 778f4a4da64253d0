"""Load the sibling modules of a multi-file Rye tool.

The Python runtimes put this folder on PYTHONPATH, so a tool does::

    from module_loader import load_module

    hooks = load_module("loaders/hooks_loader")   # or "loaders.hooks_loader"
    hooks.run()

Names are resolved inside the anchor folder: the ``anchor`` argument, else the
``RYE_ANCHOR_PATH`` environment variable, else the folder of the file that
calls ``load_module``. ``a/b`` (or ``a.b``) is ``a/b.py``, or the package
``a/b/__init__.py``; parent folders are set up as packages first, so relative
imports inside a loaded module work. Every module is registered in
``sys.modules`` under its dotted name: loading it again returns the same module.

When ``RYE_VERIFIED_MANIFEST`` names a JSON file
``{"files": {"<absolute path>": "<sha256 hex of the raw bytes>"}}`` (written by
the executor after it verified the tool's files), a file that is not listed, or
whose bytes hash differently now, is refused with ImportError. The bytes are
read once, hashed, and those same bytes are compiled and run: no bytecode
cache, no second read, no gap between check and use.

Python 3.9+, standard library only.
"""

import hashlib
import hmac
import importlib.abc
import importlib.util
import json
import os
import sys
import threading

__all__ = ["load_module"]

ANCHOR_ENV = "RYE_ANCHOR_PATH"
MANIFEST_ENV = "RYE_VERIFIED_MANIFEST"

# load_module may run again while a module it loads is executing (nested or
# circular loads): a re-entrant lock keeps each load whole.
_LOCK = threading.RLock()
# Dotted name -> real path of the file (or folder) this loader registered it from.
_LOADED = {}
_MANIFESTS = {}


class _VerifiedLoader(importlib.abc.Loader):
    """Runs the exact bytes that were read (and checked) once."""

    def __init__(self, fullname, path, data):
        self._fullname = fullname
        self._path = path
        self._data = data

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        # compile() honours a PEP 263 coding line and a BOM, like an import.
        code = compile(self._data, self._path, "exec", dont_inherit=True)
        exec(code, module.__dict__)

    def is_package(self, fullname):
        return os.path.basename(self._path) == "__init__.py"

    def get_filename(self, fullname):
        return self._path

    def get_source(self, fullname):
        # The source that ran, for inspect (and linecache once the file is gone).
        return importlib.util.decode_source(self._data)


def load_module(name, anchor=None):
    """Load ``name`` from the anchor folder and return the module.

    :param name: ``pkg.module``, ``pkg/module`` or ``pkg/module.py``, relative
        to the anchor. ``..`` and absolute paths are refused.
    :param anchor: folder to resolve ``name`` in (default: ``RYE_ANCHOR_PATH``,
        else the calling file's folder).
    :raises ImportError: for a refused name, a module that does not exist, a
        name already taken by another module, or (with ``RYE_VERIFIED_MANIFEST``)
        a file that is unlisted or changed.
    """
    parts = _split_name(name)
    if anchor is None:
        anchor = os.environ.get(ANCHOR_ENV) or _caller_folder()
    base = os.path.realpath(os.fspath(anchor))
    if not os.path.isdir(base):
        raise ImportError("Cannot load %r: anchor folder %s does not exist" % (name, base))
    with _LOCK:
        for depth in range(1, len(parts)):
            _load_one(parts[:depth], base, parent_only=True)
        return _load_one(parts, base, parent_only=False)


def _split_name(name):
    if not isinstance(name, str) or not name.strip():
        raise ImportError("Cannot load %r: a module name must be a non-empty string" % (name,))
    if ".." in name:
        raise ImportError("Cannot load %r: names containing '..' are refused" % name)
    if (
        os.path.isabs(name)
        or name.startswith(("/", "\\"))
        or os.path.splitdrive(name)[0]
    ):
        raise ImportError("Cannot load %r: absolute paths are refused" % name)
    stem = name[:-3] if name.endswith(".py") else name
    if "/" in stem or "\\" in stem:
        parts = stem.replace("\\", "/").split("/")
    else:
        parts = stem.split(".")
    for part in parts:
        if not part.isidentifier():
            raise ImportError(
                "Cannot load %r: %r is not a valid module name part" % (name, part)
            )
    return parts


def _caller_folder():
    # Two frames up: _caller_folder <- load_module <- the caller.
    frame = sys._getframe(2)
    path = frame.f_globals.get("__file__") or frame.f_code.co_filename
    if not path or path.startswith("<"):
        raise ImportError(
            "Cannot find the anchor folder: the caller has no file; pass anchor= "
            "or set %s" % ANCHOR_ENV
        )
    return os.path.dirname(os.path.realpath(path))


def _load_one(parts, base, parent_only):
    dotted = ".".join(parts)
    target = os.path.join(base, *parts)
    # A package wins over a module of the same name, as in Python's own finder.
    if os.path.isfile(os.path.join(target, "__init__.py")):
        path, package_dir = os.path.join(target, "__init__.py"), target
    elif os.path.isfile(target + ".py") and not parent_only:
        path, package_dir = target + ".py", None
    elif parent_only and os.path.isdir(target):
        # A folder without __init__.py: a namespace package, as an import would make.
        path, package_dir = None, target
    else:
        raise ImportError(
            "Cannot load %r: no %s.py or %s/__init__.py under %s"
            % (dotted, os.path.join(*parts), os.path.join(*parts), base),
            name=dotted,
        )
    real = os.path.realpath(path or package_dir)
    if not _is_inside(real, base):
        raise ImportError(
            "Cannot load %r: %s resolves to %s, outside the anchor %s"
            % (dotted, path or package_dir, real, base),
            name=dotted,
        )

    existing = sys.modules.get(dotted)
    if existing is not None:
        return _reuse(existing, dotted, real)

    if path is None:
        spec = importlib.util.spec_from_loader(dotted, None, is_package=True)
        spec.submodule_search_locations = [package_dir]
        module = importlib.util.module_from_spec(spec)
        _register(dotted, module, real)
        return module

    data = _read_checked(real)
    loader = _VerifiedLoader(dotted, path, data)
    spec = importlib.util.spec_from_file_location(
        dotted,
        path,
        loader=loader,
        submodule_search_locations=[package_dir] if package_dir else None,
    )
    module = importlib.util.module_from_spec(spec)
    # Registered before it runs, as an import does: circular loads see it.
    _register(dotted, module, real)
    try:
        loader.exec_module(module)
    except BaseException:
        sys.modules.pop(dotted, None)
        _LOADED.pop(dotted, None)
        raise
    return module


def _register(dotted, module, real):
    sys.modules[dotted] = module
    _LOADED[dotted] = real
    parent, _, child = dotted.rpartition(".")
    if parent and parent in sys.modules:
        setattr(sys.modules[parent], child, module)


def _reuse(module, dotted, real):
    """Return a module already in sys.modules if it came from the same file."""
    if _LOADED.get(dotted) == real:
        return module
    origin = getattr(module, "__file__", None)
    locations = list(getattr(module, "__path__", None) or [])
    same = (origin and os.path.realpath(origin) == real) or any(
        os.path.realpath(location) == real for location in locations
    )
    if not same:
        where = origin or (locations[0] if locations else "a built-in")
        raise ImportError(
            "Cannot load %r from %s: that name is already taken by the module from %s"
            % (dotted, real, where),
            name=dotted,
        )
    # Imported by a plain `import` (so never checked here): check it now.
    if origin and os.environ.get(MANIFEST_ENV) is not None:
        _read_checked(real)
    _LOADED[dotted] = real
    return module


def _read_checked(real):
    """Read a file's bytes once; with a manifest, refuse them unless they match."""
    with open(real, "rb") as handle:
        data = handle.read()
    manifest_path = os.environ.get(MANIFEST_ENV)
    if manifest_path is None:
        return data
    files = _read_manifest(manifest_path)
    expected = files.get(real)
    if expected is None:
        raise ImportError(
            "Cannot load %s: it is not in the verified manifest %s (only verified files may be loaded)"
            % (real, manifest_path),
            path=real,
        )
    actual = hashlib.sha256(data).hexdigest()
    if not hmac.compare_digest(actual, expected):
        raise ImportError(
            "Cannot load %s: its content changed after verification (sha256 %s, verified %s)"
            % (real, actual, expected),
            path=real,
        )
    return data


def _read_manifest(manifest_path):
    cached = _MANIFESTS.get(manifest_path)
    if cached is not None:
        return cached
    try:
        if not manifest_path:
            raise ValueError("the variable is empty")
        with open(manifest_path, "rb") as handle:
            document = json.loads(handle.read().decode("utf-8"))
        raw = document["files"]
        if not isinstance(raw, dict):
            raise ValueError('"files" is not an object')
        files = {}
        for path, digest in raw.items():
            if not isinstance(path, str) or not isinstance(digest, str):
                raise ValueError("an entry is not a path -> hash string pair")
            digest = digest.lower()
            if digest.startswith("sha256:"):
                digest = digest[len("sha256:"):]
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
                raise ValueError("the hash for %s is not 64 hex digits" % path)
            # Keys may name a file through a symlinked folder: index the real path too.
            files[os.path.abspath(path)] = digest
            files.setdefault(os.path.realpath(path), digest)
    except (OSError, ValueError, KeyError, TypeError) as error:
        # Fail closed: a manifest that cannot be read verifies nothing.
        raise ImportError(
            "Cannot read the verified manifest %s=%r: %s" % (MANIFEST_ENV, manifest_path, error)
        ) from error
    _MANIFESTS[manifest_path] = files
    return files


def _is_inside(path, base):
    try:
        return os.path.commonpath([path, base]) == base
    except ValueError:
        return False
