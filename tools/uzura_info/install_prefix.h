/* install_prefix.h — where this copy of Uzura is installed (install_prefix.c). */
#ifndef UZ_INFO_INSTALL_PREFIX_H
#define UZ_INFO_INSTALL_PREFIX_H

#include <stddef.h>

/* The prefix this program is installed under, found from its own location;
 * or, in parentheses, why there is none (the build tree's copy). */
void uz_info_install_prefix(char *buf, size_t len);

#endif /* UZ_INFO_INSTALL_PREFIX_H */
