#include <fcntl.h>
#include <unistd.h>

/* save writes its data and never syncs it: the write is the call a
   finding should point at. */
static void save(const char *name)
{
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	write(fd, "hello\n", 6); /* want write */
	close(fd);
}

int main(int argc, char **argv)
{
	save(argc > 1 ? argv[1] : "out.txt");
	return 0;
}
