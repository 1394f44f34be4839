// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE SEEK_HOLE/SEEK_DATA (Linux 4.5, protocol 7.24): lseek(SEEK_DATA)
 * and lseek(SEEK_HOLE) on a FUSE file become FUSE_LSEEK requests, and the
 * kernel returns what the server answers (fs/fuse/file.c fuse_lseek()). A
 * server that answers ENOSYS makes the kernel fall back, for good on that
 * connection (fc->no_lseek), to generic_file_llseek(): all data, one hole
 * at EOF.
 *
 * The server is ours (fuse.h), with files whose data/hole map it knows;
 * the expectations below are written out by hand from that map, offset by
 * offset, and every lseek() is checked against the FUSE_LSEEK the server
 * logged (node, offset, whence).
 *
 *   sparse      1 MiB: data [0, 64K), hole [64K, 192K), data [192K, 256K),
 *               hole [256K, 1M)
 *   hole-first  512 KiB: hole [0, 128K), data [128K, 512K)
 *   empty       0 bytes
 *
 * Negative controls (harness.negative=NAME): fuse-lying-server makes the
 * server answer one page past its map (the seek tests must fail);
 * fuse-eio-not-enosys makes the ENOSYS server answer EIO, which the
 * kernel passes on without falling back (the fallback tests must fail).
 */
#define _GNU_SOURCE
#define _FILE_OFFSET_BITS 64
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fuse.h"

#define K	1024LL

static int open_in(const struct fuse_server *s, const char *name)
{
	char path[96];

	snprintf(path, sizeof(path), "%s/%s", s->dir, name);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/* lseek() as one value: the offset, or -errno. */
static long long seek(int fd, long long off, int whence)
{
	off_t r = lseek(fd, off, whence);

	return r < 0 ? -errno : (long long)r;
}

static const char *whence_name(int whence)
{
	return whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE";
}

static int fuse_setup(struct __test_metadata *_metadata, struct fuse_server *s,
		      enum lseek_mode mode)
{
	int err = fuse_start(s, mode);

	if (err == -ENOENT || err == -ENODEV)
		SKIP(return -1, "no FUSE in this kernel (CONFIG_FUSE_FS): %s",
		     strerror(-err));
	ASSERT_EQ(0, err) TH_LOG("mount a FUSE server: %s", strerror(-err));
	return 0;
}

/*
 * One lseek() on @name: it returns @want (an offset or -errno), and the
 * server got exactly one FUSE_LSEEK more, for that file, offset and whence.
 */
static void expect_seek(struct __test_metadata *_metadata,
			const struct fuse_server *s, int fd, uint64_t nodeid,
			long long off, int whence, long long want)
{
	int before = s->log->lseeks, i;
	long long got = seek(fd, off, whence);

	EXPECT_EQ(want, got) TH_LOG("%s at %lld: %lld (want %lld)",
				    whence_name(whence), off, got, want);
	EXPECT_EQ(before + 1, s->log->lseeks)
		TH_LOG("%s at %lld: the server saw %d FUSE_LSEEK, not one",
		       whence_name(whence), off, s->log->lseeks - before);
	i = s->log->lseeks - 1;
	if (i >= before && i < LSEEK_LOG) {
		EXPECT_EQ(nodeid, s->log->lseek[i].nodeid);
		EXPECT_EQ((uint64_t)off, s->log->lseek[i].offset);
		EXPECT_EQ((uint32_t)whence, s->log->lseek[i].whence);
	}
}

FIXTURE(lseek) {
	struct fuse_server srv;
	int sparse, hole_first, empty;
};

FIXTURE_SETUP(lseek)
{
	self->sparse = self->hole_first = self->empty = -1;
	if (fuse_setup(_metadata, &self->srv,
		       guest_negative_control("fuse-lying-server") ? LSEEK_LIE : LSEEK_MAP))
		return;
	self->sparse = open_in(&self->srv, "sparse");
	ASSERT_LE(0, self->sparse) TH_LOG("open sparse: %s", strerror(errno));
	self->hole_first = open_in(&self->srv, "hole-first");
	ASSERT_LE(0, self->hole_first) TH_LOG("open hole-first: %s", strerror(errno));
	self->empty = open_in(&self->srv, "empty");
	ASSERT_LE(0, self->empty) TH_LOG("open empty: %s", strerror(errno));
}

FIXTURE_TEARDOWN(lseek)
{
	if (self->sparse >= 0)
		close(self->sparse);
	if (self->hole_first >= 0)
		close(self->hole_first);
	if (self->empty >= 0)
		close(self->empty);
	fuse_stop(&self->srv);
}

TEST_F(lseek, seek_at_0_finds_the_data_there_and_the_hole_after_it)
{
	expect_seek(_metadata, &self->srv, self->sparse, 2, 0, SEEK_DATA, 0);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 0, SEEK_HOLE, 64 * K);
}

TEST_F(lseek, seek_inside_data_stays_for_data_and_finds_the_next_hole)
{
	expect_seek(_metadata, &self->srv, self->sparse, 2, 32 * K, SEEK_DATA, 32 * K);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 32 * K, SEEK_HOLE, 64 * K);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 200 * K, SEEK_DATA, 200 * K);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 200 * K, SEEK_HOLE, 256 * K);
}

TEST_F(lseek, seek_inside_a_hole_finds_the_next_data_and_stays_for_holes)
{
	expect_seek(_metadata, &self->srv, self->sparse, 2, 64 * K, SEEK_DATA, 192 * K);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 64 * K, SEEK_HOLE, 64 * K);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 100 * K, SEEK_DATA, 192 * K);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 100 * K, SEEK_HOLE, 100 * K);
}

TEST_F(lseek, seek_data_in_the_last_hole_gives_enxio)
{
	expect_seek(_metadata, &self->srv, self->sparse, 2, 256 * K, SEEK_DATA, -ENXIO);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 256 * K, SEEK_HOLE, 256 * K);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 1024 * K - 1, SEEK_DATA, -ENXIO);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 1024 * K - 1, SEEK_HOLE,
		    1024 * K - 1);
}

TEST_F(lseek, seek_at_eof_gives_enxio)
{
	expect_seek(_metadata, &self->srv, self->sparse, 2, 1024 * K, SEEK_DATA, -ENXIO);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 1024 * K, SEEK_HOLE, -ENXIO);
	expect_seek(_metadata, &self->srv, self->hole_first, 3, 512 * K, SEEK_DATA, -ENXIO);
	expect_seek(_metadata, &self->srv, self->hole_first, 3, 512 * K, SEEK_HOLE, -ENXIO);
}

TEST_F(lseek, seek_past_eof_gives_enxio)
{
	expect_seek(_metadata, &self->srv, self->sparse, 2, 4096 * K, SEEK_DATA, -ENXIO);
	expect_seek(_metadata, &self->srv, self->sparse, 2, 4096 * K, SEEK_HOLE, -ENXIO);
}

TEST_F(lseek, seek_data_at_0_skips_a_leading_hole)
{
	expect_seek(_metadata, &self->srv, self->hole_first, 3, 0, SEEK_DATA, 128 * K);
	expect_seek(_metadata, &self->srv, self->hole_first, 3, 0, SEEK_HOLE, 0);
}

/* A file that ends in data has one hole, the implicit one at EOF. */
TEST_F(lseek, seek_hole_in_the_last_data_gives_eof)
{
	expect_seek(_metadata, &self->srv, self->hole_first, 3, 128 * K, SEEK_HOLE, 512 * K);
	expect_seek(_metadata, &self->srv, self->hole_first, 3, 512 * K - 1, SEEK_DATA,
		    512 * K - 1);
	expect_seek(_metadata, &self->srv, self->hole_first, 3, 512 * K - 1, SEEK_HOLE,
		    512 * K);
}

TEST_F(lseek, empty_file_gives_enxio_at_0)
{
	expect_seek(_metadata, &self->srv, self->empty, 4, 0, SEEK_DATA, -ENXIO);
	expect_seek(_metadata, &self->srv, self->empty, 4, 0, SEEK_HOLE, -ENXIO);
}

/* The file position is where the last successful seek put it. */
TEST_F(lseek, seek_moves_the_file_position)
{
	expect_seek(_metadata, &self->srv, self->sparse, 2, 100 * K, SEEK_DATA, 192 * K);
	EXPECT_EQ(192 * K, seek(self->sparse, 0, SEEK_CUR));
	expect_seek(_metadata, &self->srv, self->sparse, 2, 1024 * K, SEEK_DATA, -ENXIO);
	EXPECT_EQ(192 * K, seek(self->sparse, 0, SEEK_CUR));
}

/* SEEK_SET, SEEK_CUR and SEEK_END stay in the kernel. */
TEST_F(lseek, other_whence_values_send_no_fuse_lseek)
{
	EXPECT_EQ(100 * K, seek(self->sparse, 100 * K, SEEK_SET));
	EXPECT_EQ(101 * K, seek(self->sparse, 1 * K, SEEK_CUR));
	EXPECT_EQ(1024 * K, seek(self->sparse, 0, SEEK_END));
	EXPECT_EQ(0, self->srv.log->lseeks);
}

/* The data the map describes reads back, and the holes read as zeros. */
TEST_F(lseek, reads_follow_the_map)
{
	const struct sparse_file *f = sparse_by_node(2);
	static char buf[1024 * 1024];
	uint64_t pos, bad = 0;
	ssize_t n = pread(self->sparse, buf, sizeof(buf), 0);

	ASSERT_EQ((ssize_t)f->size, n) TH_LOG("read: %s", strerror(errno));
	for (pos = 0; pos < f->size; pos++)
		if ((unsigned char)buf[pos] != (in_data(f, pos) ? data_byte(f, pos) : 0))
			bad++;
	EXPECT_EQ(0ULL, (unsigned long long)bad);
	EXPECT_LT(0, self->srv.log->requests[FUSE_READ]);
}

/* A server that answers FUSE_LSEEK with ENOSYS. */

FIXTURE(nolseek) {
	struct fuse_server srv;
	int sparse;
};

FIXTURE_SETUP(nolseek)
{
	self->sparse = -1;
	if (fuse_setup(_metadata, &self->srv,
		       guest_negative_control("fuse-eio-not-enosys") ? LSEEK_EIO : LSEEK_ENOSYS))
		return;
	self->sparse = open_in(&self->srv, "sparse");
	ASSERT_LE(0, self->sparse) TH_LOG("open sparse: %s", strerror(errno));
}

FIXTURE_TEARDOWN(nolseek)
{
	if (self->sparse >= 0)
		close(self->sparse);
	fuse_stop(&self->srv);
}

/* generic_file_llseek(): the whole file is data, its hole starts at EOF. */
TEST_F(nolseek, enosys_falls_back_to_all_data_and_one_hole_at_eof)
{
	EXPECT_EQ(0, seek(self->sparse, 0, SEEK_DATA));
	EXPECT_EQ(1024 * K, seek(self->sparse, 0, SEEK_HOLE));
	EXPECT_EQ(100 * K, seek(self->sparse, 100 * K, SEEK_DATA));	/* a hole in the map */
	EXPECT_EQ(1024 * K, seek(self->sparse, 100 * K, SEEK_HOLE));
	EXPECT_EQ(1024 * K - 1, seek(self->sparse, 1024 * K - 1, SEEK_DATA));
	EXPECT_EQ(-ENXIO, seek(self->sparse, 1024 * K, SEEK_DATA));
	EXPECT_EQ(-ENXIO, seek(self->sparse, 1024 * K, SEEK_HOLE));
	EXPECT_EQ(-ENXIO, seek(self->sparse, 4096 * K, SEEK_DATA));
}

/* The first ENOSYS sets fc->no_lseek: no FUSE_LSEEK after it, on any file. */
TEST_F(nolseek, enosys_stops_fuse_lseek_on_that_connection)
{
	int other = open_in(&self->srv, "hole-first");
	int i;

	ASSERT_LE(0, other);
	EXPECT_EQ(0, seek(self->sparse, 100 * K, SEEK_DATA) < 0);
	EXPECT_EQ(1, self->srv.log->requests[FUSE_LSEEK]);
	for (i = 0; i < 10; i++) {
		seek(self->sparse, i * 64 * K, i % 2 ? SEEK_HOLE : SEEK_DATA);
		seek(other, i * 32 * K, i % 2 ? SEEK_DATA : SEEK_HOLE);
	}
	EXPECT_EQ(1, self->srv.log->requests[FUSE_LSEEK])
		TH_LOG("FUSE_LSEEK requests after the ENOSYS: %d",
		       self->srv.log->requests[FUSE_LSEEK] - 1);
	close(other);
}

/* no_lseek is per connection: another mount's server still gets FUSE_LSEEK. */
TEST_F(nolseek, other_connections_still_send_fuse_lseek)
{
	struct fuse_server good;
	int fd;

	EXPECT_LE(0, seek(self->sparse, 0, SEEK_HOLE));
	ASSERT_EQ(0, fuse_start(&good, LSEEK_MAP));
	fd = open_in(&good, "sparse");
	EXPECT_LE(0, fd);
	if (fd >= 0) {
		EXPECT_EQ(192 * K, seek(fd, 100 * K, SEEK_DATA));
		close(fd);
	}
	EXPECT_EQ(1, good.log->requests[FUSE_LSEEK]);
	fuse_stop(&good);
}

TEST_HARNESS_MAIN
