/*
 * singleton_kvs.h — the key-value space of a process started without a
 * process manager: a table in this process, since nobody else can read it.
 */
#ifndef UZ_PMI_SINGLETON_KVS_H
#define UZ_PMI_SINGLETON_KVS_H

#include <stddef.h>

int uz_pmi_singleton_put(const char *key, const char *value);
int uz_pmi_singleton_get(const char *key, char *value, size_t value_len);
void uz_pmi_singleton_clear(void);

#endif /* UZ_PMI_SINGLETON_KVS_H */
