/* SPDX-License-Identifier: MIT */
/*
 * libsync's own: the errno convention of sync.h, for its .c files only.
 */
#ifndef FLIPFENCE_LIBSYNC_ERRNO_CONVENTION_H
#define FLIPFENCE_LIBSYNC_ERRNO_CONVENTION_H

#include <errno.h>

/*
 * The errno for an ioctl that failed with @err: ENOTTY (the file does not
 * know the ioctl, so it is not what the call needs) becomes EINVAL.
 */
static inline int sync_errno(int err)
{
	return err == ENOTTY ? EINVAL : err;
}

#endif /* FLIPFENCE_LIBSYNC_ERRNO_CONVENTION_H */
