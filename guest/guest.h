/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the guest test programs. */
#ifndef GUEST_H
#define GUEST_H

#include <stdbool.h>
#include <stddef.h>

/* Find the virtio disk with serial @serial; write "/dev/vdX" into @dev. */
int guest_find_disk(const char *serial, char *dev, size_t size);

/* True if the mount at @dir lists @option in /proc/self/mounts. */
bool guest_mount_has_option(const char *dir, const char *option);

#endif
