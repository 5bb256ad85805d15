/*
 * compiler.h — the few compiler hints every layer uses: branch likelihood,
 * symbol visibility, keeping cold error paths out of line and hot helpers
 * in line.
 */
#ifndef UZ_BASE_COMPILER_H
#define UZ_BASE_COMPILER_H

#define UZ_LIKELY(x)   __builtin_expect(!!(x), 1)
#define UZ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define UZ_EXPORT      __attribute__((visibility("default")))
#define UZ_COLD        __attribute__((cold, noinline))
#define UZ_NOINLINE    __attribute__((noinline))
#define UZ_ALWAYS_INLINE inline __attribute__((always_inline))

#endif /* UZ_BASE_COMPILER_H */
