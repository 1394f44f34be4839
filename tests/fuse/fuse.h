/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A FUSE server for tests/fuse/fuse-lseek.c that speaks the /dev/fuse
 * protocol itself (the guest is static and has no libfuse): read one
 * request, write one reply, until the connection goes away.
 *
 * It serves a read-only root directory holding sparse files whose data and
 * holes it knows (struct sparse_file: the data extents; the rest up to the
 * size is hole), and answers
 *
 *   INIT      protocol 7.x (x: the kernel's, at most our header's), no flags
 *   LOOKUP    the files by name; entries and attributes valid for an hour
 *   GETATTR   the root and the files
 *   OPEN      fh = node id
 *   READ      the data extents' bytes (data_byte()), zeros in the holes
 *   LSEEK     SEEK_DATA/SEEK_HOLE from the map (map_seek()), or as the
 *             server's mode says: ENOSYS, EIO, or a lie
 *   RELEASE, FLUSH   nothing to do
 *   FORGET, BATCH_FORGET, INTERRUPT   no reply
 *
 * and ENOSYS to anything else. It counts every request per opcode and
 * logs each LSEEK's node, offset and whence in memory it shares with the
 * test (struct server_log).
 *
 * fuse_start() opens /dev/fuse, mounts it on a fresh directory under /tmp
 * and forks the server; fuse_stop() unmounts (the kernel ends the
 * connection, the server's read() gets ENODEV) and reaps it.
 */
#ifndef FUSE_TEST_H
#define FUSE_TEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "guest.h"

#define KiB	1024ULL

struct extent {
	uint64_t start, len;
};

struct sparse_file {
	const char *name;
	uint64_t nodeid;		/* also the inode number */
	uint64_t size;
	struct extent data[4];		/* sorted, not adjacent; len 0 ends */
};

/*
 * The files: data and holes, a file that starts with a hole and ends with
 * data (its only hole at EOF is the implicit one), an empty file.
 */
static const struct sparse_file sparse_files[] = {
	{ "sparse", 2, 1024 * KiB,
	  { { 0, 64 * KiB }, { 192 * KiB, 64 * KiB } } },
	{ "hole-first", 3, 512 * KiB, { { 128 * KiB, 384 * KiB } } },
	{ "empty", 4, 0, { { 0, 0 } } },
};

#define NR_SPARSE_FILES	(sizeof(sparse_files) / sizeof(sparse_files[0]))

static inline const struct sparse_file *sparse_by_node(uint64_t nodeid)
{
	size_t i;

	for (i = 0; i < NR_SPARSE_FILES; i++)
		if (sparse_files[i].nodeid == nodeid)
			return &sparse_files[i];
	return NULL;
}

/* The byte at @pos of the data of @f: never 0, so holes stand out. */
static inline unsigned char data_byte(const struct sparse_file *f, uint64_t pos)
{
	return (pos / 4096 * 37 + f->nodeid * 11) % 255 + 1;
}

static inline bool in_data(const struct sparse_file *f, uint64_t pos)
{
	int i;

	for (i = 0; i < 4 && f->data[i].len; i++)
		if (pos >= f->data[i].start && pos < f->data[i].start + f->data[i].len)
			return true;
	return false;
}

/*
 * SEEK_DATA/SEEK_HOLE on @f by its map: the offset, or -ENXIO at or past
 * EOF, and for SEEK_DATA in the last hole.
 */
static inline int64_t map_seek(const struct sparse_file *f, uint64_t off,
			       int whence)
{
	int i;

	if (off >= f->size)
		return -ENXIO;
	for (i = 0; i < 4 && f->data[i].len; i++) {
		uint64_t end = f->data[i].start + f->data[i].len;

		if (whence == SEEK_DATA && off < end)
			return off > f->data[i].start ? off : f->data[i].start;
		if (whence == SEEK_HOLE) {
			if (off < f->data[i].start)
				return off;
			if (off < end)
				off = end;
		}
	}
	if (whence == SEEK_DATA)
		return -ENXIO;
	return off < f->size ? off : f->size;
}

/* How the server answers FUSE_LSEEK. */
enum lseek_mode {
	LSEEK_MAP,	/* from the map */
	LSEEK_ENOSYS,	/* "not implemented": the kernel must fall back */
	LSEEK_EIO,	/* negative control of the ENOSYS server: another error */
	LSEEK_LIE,	/* negative control: a page past the map, EOF for ENXIO */
};

#define LSEEK_LOG	64
#define OPCODES		64

/* What the server saw, shared with the test. */
struct server_log {
	int requests[OPCODES];		/* per opcode (FUSE_LSEEK is 46) */
	int lseeks;			/* entries used in lseek[] */
	struct {
		uint64_t nodeid, offset;
		uint32_t whence;
	} lseek[LSEEK_LOG];
};

struct fuse_server {
	char dir[32];
	pid_t pid;
	struct server_log *log;
};

static int fuse_reply(int fd, uint64_t unique, int error, const void *arg,
		      size_t len)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	struct iovec iov[2] = {
		{ &out, sizeof(out) },
		{ (void *)arg, error ? 0 : len },
	};

	return writev(fd, iov, 2) == (ssize_t)out.len ? 0 : -errno;
}

static void fill_attr(struct fuse_attr *a, uint64_t nodeid)
{
	const struct sparse_file *f = sparse_by_node(nodeid);

	memset(a, 0, sizeof(*a));
	a->ino = nodeid;
	a->blksize = 4096;
	if (!f) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
		return;
	}
	a->mode = S_IFREG | 0444;
	a->nlink = 1;
	a->size = f->size;
	a->blocks = f->size / 512;
}

/* One request in @buf (@n bytes); replies on @fd. */
static void fuse_serve_one(int fd, char *buf, ssize_t n, enum lseek_mode mode,
			   struct server_log *log)
{
	struct fuse_in_header *in = (struct fuse_in_header *)buf;
	void *arg = buf + sizeof(*in);
	const struct sparse_file *f = sparse_by_node(in->nodeid);
	uint64_t u = in->unique;

	if (n < (ssize_t)sizeof(*in))
		return;
	if (in->opcode < OPCODES)
		__atomic_add_fetch(&log->requests[in->opcode], 1, __ATOMIC_SEQ_CST);
	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *ii = arg;
		struct fuse_init_out out = {
			.major = FUSE_KERNEL_VERSION,
			.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
				 ii->minor : FUSE_KERNEL_MINOR_VERSION,
			.max_readahead = ii->max_readahead,
			.max_write = 64 * 1024,
			.time_gran = 1,
		};

		fuse_reply(fd, u, 0, &out, sizeof(out));
		return;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out out = { .entry_valid = 3600, .attr_valid = 3600 };
		size_t i;

		for (i = 0; i < NR_SPARSE_FILES; i++)
			if (in->nodeid == FUSE_ROOT_ID &&
			    !strcmp(arg, sparse_files[i].name))
				break;
		if (i == NR_SPARSE_FILES) {
			fuse_reply(fd, u, -ENOENT, NULL, 0);
			return;
		}
		out.nodeid = sparse_files[i].nodeid;
		out.generation = 1;
		fill_attr(&out.attr, out.nodeid);
		fuse_reply(fd, u, 0, &out, sizeof(out));
		return;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out out = { .attr_valid = 3600 };

		if (in->nodeid != FUSE_ROOT_ID && !f) {
			fuse_reply(fd, u, -ENOENT, NULL, 0);
			return;
		}
		fill_attr(&out.attr, in->nodeid);
		fuse_reply(fd, u, 0, &out, sizeof(out));
		return;
	}
	case FUSE_OPEN: {
		struct fuse_open_out out = { .fh = in->nodeid };

		fuse_reply(fd, u, f ? 0 : -EISDIR, &out, sizeof(out));
		return;
	}
	case FUSE_READ: {
		const struct fuse_read_in *ri = arg;
		static char data[128 * 1024];
		uint64_t pos, len = 0;

		if (f && ri->offset < f->size) {
			len = f->size - ri->offset;
			if (len > ri->size)
				len = ri->size;
			if (len > sizeof(data))
				len = sizeof(data);
		}
		for (pos = 0; pos < len; pos++)
			data[pos] = in_data(f, ri->offset + pos) ?
				    data_byte(f, ri->offset + pos) : 0;
		fuse_reply(fd, u, f ? 0 : -EIO, data, len);
		return;
	}
	case FUSE_LSEEK: {
		const struct fuse_lseek_in *li = arg;
		struct fuse_lseek_out out;
		int i = __atomic_fetch_add(&log->lseeks, 1, __ATOMIC_SEQ_CST);
		int64_t r;

		if (i < LSEEK_LOG) {
			log->lseek[i].nodeid = in->nodeid;
			log->lseek[i].offset = li->offset;
			log->lseek[i].whence = li->whence;
		}
		if (mode == LSEEK_ENOSYS || mode == LSEEK_EIO) {
			fuse_reply(fd, u, mode == LSEEK_ENOSYS ? -ENOSYS : -EIO,
				   NULL, 0);
			return;
		}
		r = f ? map_seek(f, li->offset, li->whence) : -EINVAL;
		if (f && mode == LSEEK_LIE)	/* a page off, and no ENXIO */
			r = r >= 0 ? r + 4096 : (int64_t)f->size;
		out.offset = r;
		fuse_reply(fd, u, r < 0 ? (int)r : 0, &out, sizeof(out));
		return;
	}
	case FUSE_RELEASE:
	case FUSE_FLUSH:
		fuse_reply(fd, u, 0, NULL, 0);
		return;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		return;
	default:
		fuse_reply(fd, u, -ENOSYS, NULL, 0);
	}
}

/* The server process: serve until the connection ends. */
static void __attribute__((noreturn))
fuse_serve(int fd, enum lseek_mode mode, struct server_log *log)
{
	static char buf[FUSE_MIN_READ_BUFFER + 256 * 1024];
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && (errno == EINTR || errno == ENOENT || errno == EAGAIN))
			continue;
		if (n <= 0)
			_exit(errno == ENODEV ? 0 : 1);
		fuse_serve_one(fd, buf, n, mode, log);
	}
}

/* Mount a server in @mode on a fresh directory; 0 or -errno. */
static int fuse_start(struct fuse_server *s, enum lseek_mode mode)
{
	char opts[128];
	pid_t parent = getpid();
	int fd, err;

	memset(s, 0, sizeof(*s));
	s->log = mmap(NULL, sizeof(*s->log), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s->log == MAP_FAILED)
		return -errno;
	memset(s->log, 0, sizeof(*s->log));
	snprintf(s->dir, sizeof(s->dir), "/tmp/fuse.XXXXXX");
	if (!mkdtemp(s->dir))
		return -errno;
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		rmdir(s->dir);
		s->dir[0] = '\0';
		return err;
	}
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0",
		 fd);
	if (mount("sparsefs", s->dir, "fuse", MS_NOSUID | MS_NODEV | MS_RDONLY,
		  opts)) {
		err = -errno;
		close(fd);
		rmdir(s->dir);
		s->dir[0] = '\0';
		return err;
	}
	s->pid = fork();
	if (s->pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		if (null >= 0) {	/* init relays the suite until all its holders exit */
			dup2(null, 1);
			dup2(null, 2);
		}
		fuse_serve(fd, mode, s->log);
	}
	err = s->pid < 0 ? -errno : 0;
	close(fd);
	return err;
}

static void fuse_stop(struct fuse_server *s)
{
	if (s->dir[0]) {
		if (umount(s->dir)) {
			/* busy: detach it, and end the connection with its server */
			umount2(s->dir, MNT_DETACH);
			if (s->pid > 0)
				kill(s->pid, SIGKILL);
		}
		rmdir(s->dir);
	}
	if (s->pid > 0) {
		/* the kernel ended the connection: the server exits by itself */
		waitpid(s->pid, NULL, 0);
		s->pid = 0;
	}
	if (s->log && s->log != MAP_FAILED)
		munmap(s->log, sizeof(*s->log));
}


#endif
