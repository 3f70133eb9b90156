"""Saves a config file by the temp-and-rename recipe, but forgets
f.flush() before os.fsync: the fsync finds nothing in the kernel yet."""
import os


def save(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
        os.fsync(f.fileno())  # the data is still in Python's buffer
    os.rename(tmp, path)
    fd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    os.fsync(fd)
    os.close(fd)


save("config.txt", "version=2\nreplicas=3\n")
