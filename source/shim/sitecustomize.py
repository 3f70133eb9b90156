# crashsim's Python shim, put first on PYTHONPATH by `crashsim trace --stack`.
#
# strace -k sees only the interpreter's C frames, never the .py line that
# asked for a file operation. This audit hook (PEP 578) marks each open,
# rename, replace, remove, mkdir and rmdir that the program's own code asks
# for with one harmless call strace records: an open of a path below
# /proc/self/crashsim-source/ that does not exist, whose name carries the
# .py file, line and function, the operation and the paths, hex-encoded.
# The open fails (ENOENT) and changes nothing; crashsim reads the marks
# back from the trace and names the line of each finding.
#
# Frames of the standard library, of installed packages and of frozen
# import machinery are skipped, so a mark names the user's line.
import os
import sys
import threading

_PREFIX = "/proc/self/crashsim-source/"
_EVENTS = frozenset(["open", "os.rename", "os.remove", "os.mkdir", "os.rmdir", "os.link", "os.symlink", "os.truncate"])
_here = os.path.dirname(os.path.abspath(__file__))


def _library_dirs():
    try:
        import sysconfig

        paths = sysconfig.get_paths()
        dirs = {paths.get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    except Exception:
        dirs = set()
    dirs.add(_here)
    return tuple(os.path.join(d, "") for d in dirs if d)


_skip = _library_dirs()
_local = threading.local()


def _user_frame():
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if name.startswith("<frozen importlib"):
            return None  # an import reading a module: not the program's data
        if not name.startswith("<frozen") and not name.startswith(_skip):
            return f  # the program's own file, or <string> for python -c
        f = f.f_back
    return None


def _path(p):
    if isinstance(p, int):
        return "fd:%d" % p
    try:
        return os.path.abspath(os.fsdecode(p))
    except Exception:
        return ""


def _hook(event, args):
    if event not in _EVENTS or getattr(_local, "busy", False):
        return
    _local.busy = True
    try:
        f = _user_frame()
        if f is None:
            return
        src, dst = "", _path(args[0]) if args else ""
        if event in ("os.rename", "os.link", "os.symlink") and len(args) > 1:
            src, dst = _path(args[0]), _path(args[1])
        file = f.f_code.co_filename
        if not file.startswith("<"):
            file = os.path.abspath(file)
        fields = [event, file, str(f.f_lineno), f.f_code.co_name, dst, src]
        mark = "\0".join(fields).encode("utf-8", "surrogateescape").hex()
        try:
            os.close(os.open(_PREFIX + mark, os.O_RDONLY))
        except OSError:
            pass
    except Exception:
        pass
    finally:
        _local.busy = False


if hasattr(sys, "addaudithook"):
    sys.addaudithook(_hook)

# Hand over to the sitecustomize this one shadows, if there is one, under
# another module name: this module stays "sitecustomize" for site.py.
def _chain():
    import importlib.machinery
    import importlib.util

    path = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    sys.modules["_crashsim_user_sitecustomize"] = mod
    spec.loader.exec_module(mod)


_chain()
