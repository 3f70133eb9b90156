# crashsim's Python shim, put first on PYTHONPATH by `crashsim trace --stack`.
#
# strace -k sees only the interpreter's C frames, never the .py line that
# asked for a file operation. This shim marks each file operation the
# program's own code asks for with one harmless call strace records: an
# open of a path below /proc/self/crashsim-source/ that does not exist,
# whose name carries the operation, the .py file, line and function and
# the paths, hex-encoded. The open fails (ENOENT) and changes nothing;
# crashsim reads the marks back from the trace and names the line of each
# finding.
#
# Three ways in, each for what the interpreter lets it see:
#   - an audit hook (PEP 578) for the operations Python audits: open,
#     rename and replace, remove, mkdir, rmdir, link, symlink, truncate;
#   - wrappers around the os functions it does not audit (os.fsync,
#     os.fdatasync, os.sync, os.write, ...), installed on the os module;
#   - on Python 3.12 and later, sys.monitoring for the write method of a
#     file object (f.write): its bytes reach the kernel later, at a flush
#     or a close, so the mark notes the line against the file's fd, once
#     per line and fd until the next open.
# A mark of the first two kinds comes right before the call it names, in
# the same thread. On 3.11 and before, f.write is seen by nothing short of
# a profiler on every call: a finding on its bytes names the open.
#
# Frames of the standard library, of installed packages and of frozen
# import machinery are skipped, so a mark names the user's line.
import os
import sys
import threading

_PREFIX = "/proc/self/crashsim-source/"
_EVENTS = frozenset(["open", "os.rename", "os.remove", "os.mkdir", "os.rmdir", "os.link", "os.symlink", "os.truncate"])
_here = os.path.dirname(os.path.abspath(__file__))
_open = os.open


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
    f = sys._getframe(1)
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


# The absolute name of each code object's file, made once: abspath asks
# the kernel for the working directory.
_files = {}


def _mark(op, dst, src=""):
    """Marks the user's line that asked for op; False when there is none."""
    f = _user_frame()
    if f is None:
        return False
    code = f.f_code
    file = _files.get(code)
    if file is None:
        file = code.co_filename
        if not file.startswith("<"):
            file = os.path.abspath(file)
        _files[code] = file
    fields = [op, file, str(f.f_lineno), code.co_name, dst, src]
    mark = "\0".join(fields).encode("utf-8", "surrogateescape").hex()
    try:
        os.close(_open(_PREFIX + mark, os.O_RDONLY))
    except OSError:
        pass
    return True


# The lines noted for each fd's file-object writes (see _on_call), since
# the last open: an fd number is reused by the next file opened.
_noted = {}


def _hook(event, args):
    if event not in _EVENTS or getattr(_local, "busy", False):
        return
    _local.busy = True
    try:
        if event == "open":
            _noted.clear()
        src, dst = "", _path(args[0]) if args else ""
        if event in ("os.rename", "os.link", "os.symlink") and len(args) > 1:
            src, dst = _path(args[0]), _path(args[1])
        _mark(event, dst, src)
    except Exception:
        pass
    finally:
        _local.busy = False


def _mark_call(op, args):
    if getattr(_local, "busy", False):
        return
    _local.busy = True
    try:
        _mark(op, _path(args[0]) if args else "")
    finally:
        _local.busy = False


def _wrap(name):
    real = getattr(os, name, None)
    if real is None:
        return
    op = "os." + name

    def call(*args, **kwargs):
        try:
            _mark_call(op, args)
        except Exception:
            pass  # even at shutdown, with the module's globals gone
        return real(*args, **kwargs)

    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        try:
            setattr(call, attr, getattr(real, attr))
        except (AttributeError, TypeError):
            pass
    call.__wrapped__ = real
    setattr(os, name, call)


# The os functions that reach a file's data or its durability and raise no
# audit event. os.ftruncate raises os.truncate.
_WRAPPED = (
    "fsync",
    "fdatasync",
    "sync",
    "write",
    "pwrite",
    "writev",
    "pwritev",
    "sendfile",
    "copy_file_range",
    "sync_file_range",
    "posix_fallocate",
)


def _monitor():
    mon = getattr(sys, "monitoring", None)
    if mon is None:
        return
    tool = next((t for t in (3, 4) if mon.get_tool(t) is None), None)
    if tool is None:
        return  # both free tool ids are taken: no f.write lines
    import io
    import types

    classes = (io.FileIO, io.BufferedWriter, io.BufferedRandom, io.TextIOWrapper)
    writes = {}
    for cls in classes:
        for name in ("write", "writelines"):
            writes[id(getattr(cls, name))] = True
    bound = types.BuiltinMethodType
    disable = mon.DISABLE

    def _on_call(code, offset, func, arg0):
        # A call site that calls something else is disabled, and costs
        # nothing from then on; only the sites that write to a file keep
        # calling back, and a site in the program's own code that has
        # been noted for this fd returns after a few lookups.
        try:
            if id(func) in writes:
                obj = arg0
            elif type(func) is bound and type(func.__self__) in classes and func.__name__ in ("write", "writelines"):
                obj = func.__self__
            else:
                return disable
            if getattr(_local, "busy", False):
                return None
            fd = obj.fileno()
            lines = _noted.setdefault(fd, set())
            name = code.co_filename
            if name.startswith("<frozen") or name.startswith(_skip):
                # json.dump's own write: the user's line is further out.
                f = _user_frame()
                if f is None:
                    return None
                key = (f.f_code, f.f_lineno)
            else:
                key = (code, offset)
            if key in lines:
                return None
            lines.add(key)
            _local.busy = True
            try:
                _mark("write", _path(getattr(obj, "name", fd)), str(fd))
            finally:
                _local.busy = False
        except Exception:
            pass
        return None

    mon.use_tool_id(tool, "crashsim")
    mon.register_callback(tool, mon.events.CALL, _on_call)
    mon.set_events(tool, mon.events.CALL)


def _install():
    if hasattr(sys, "addaudithook"):
        sys.addaudithook(_hook)
    for name in _WRAPPED:
        _wrap(name)
    try:
        _monitor()
    except Exception:
        pass
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=_noted.clear)


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


# The shim is written for Python 3.6 and later; an older Python runs as
# if it were not there.
if sys.version_info >= (3, 6):
    _install()
    _chain()
