/*
 * perfmon/err.h - pfmlib's libpfm.so.4: libpfm4's examples and tests
 * include this file for err(3), errx(3), warn(3) and warnx(3), which the C
 * library declares.
 */
#ifndef __PFM_ERR_H__
#define __PFM_ERR_H__

#include <err.h>

#endif /* __PFM_ERR_H__ */
