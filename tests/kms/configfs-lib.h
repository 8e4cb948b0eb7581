/* SPDX-License-Identifier: MIT */
/* Helpers for the configfs tests (configfs-lib.c). */
#ifndef FLIPFENCE_CONFIGFS_LIB_H
#define FLIPFENCE_CONFIGFS_LIB_H

#include <stdbool.h>
#include <stddef.h>

#include "kms.h"

#define CONFIG_ROOT	"/sys/kernel/config"
#define ROOT		CONFIG_ROOT "/flipkms"

/* ROOT/@fmt..., in a static buffer that the next call reuses. */
const char *at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The first line of a file, or "" if it cannot be read (static buffer). */
const char *read_line(const char *file);
/* mkdir ROOT/@dev/@kind/@name. */
int mk(const char *dev, const char *kind, const char *name);
/* A link @dev/@kind/@name/@dir/@target to @dev/@tkind/@target, relative. */
int ln(const char *dev, const char *kind, const char *name, const char *dir,
       const char *tkind, const char *target);
/* A link ROOT/@from to ROOT/@target. */
int link_at(const char *target, const char *from);
/* @value into ROOT/@dev/@file: 0 or -errno. */
int set(const char *dev, const char *file, const char *value);
/* Output @i of @dev, all linked (configfs-lib.c says what): 0 or -errno. */
int add_output(const char *dev, int i);
/* Removes every link, object and then @dev itself: 0 or -errno of the rmdir. */
int remove_device(const char *dev);
/* /dev/dri/cardN of platform device flipkms-@dev into @card, or -1. */
int find_card(const char *dev, char *card, size_t len);
/* @dev's card opened as an atomic client into @kd: 0 or -1. */
int open_card(const char *dev, struct kms_dev *kd);
/* Whether a "change" uevent with HOTPLUG=1 for @card came within 5 s. */
bool uevent_hotplug(int fd, const char *card);

/* Connectors added to and removed from an enabled device (configfs-hotadd.c). */
void check_hot_add(void);

#endif
