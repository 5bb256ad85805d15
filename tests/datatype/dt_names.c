/*
 * dt_names.c — the names of the predefined datatypes (issue 22): each is
 * the name of its constant in mpi.h.  The standard ABI makes two pairs of
 * constants one handle (MPI_LONG_LONG_INT = MPI_LONG_LONG, MPI_C_COMPLEX =
 * MPI_C_FLOAT_COMPLEX); a handle has one name, the one the standard lists
 * first (the other is "(as a synonym)" in its tables), as MPICH says.
 * Every predefined handle value is visited, so a type added to mpi.h
 * without a name here fails.
 */
#include "dt_check.h"

struct named {
    MPI_Datatype t;
    const char *constant;       /* as written in the program */
    const char *name;           /* what MPI_Type_get_name must say */
};

#define SAME(c) { c, #c, #c }
#define SYNONYM(c, primary) { c, #c, #primary }

static const struct named all[] = {
    SAME(MPI_AINT), SAME(MPI_COUNT), SAME(MPI_OFFSET), SAME(MPI_PACKED), SAME(MPI_SHORT),
    SAME(MPI_INT), SAME(MPI_LONG), SAME(MPI_LONG_LONG_INT), SYNONYM(MPI_LONG_LONG, MPI_LONG_LONG_INT),
    SAME(MPI_UNSIGNED_SHORT), SAME(MPI_UNSIGNED), SAME(MPI_UNSIGNED_LONG),
    SAME(MPI_UNSIGNED_LONG_LONG), SAME(MPI_FLOAT), SAME(MPI_C_COMPLEX),
    SYNONYM(MPI_C_FLOAT_COMPLEX, MPI_C_COMPLEX), SAME(MPI_CXX_FLOAT_COMPLEX), SAME(MPI_DOUBLE),
    SAME(MPI_C_DOUBLE_COMPLEX), SAME(MPI_CXX_DOUBLE_COMPLEX), SAME(MPI_LOGICAL),
    SAME(MPI_INTEGER), SAME(MPI_REAL), SAME(MPI_COMPLEX), SAME(MPI_DOUBLE_PRECISION),
    SAME(MPI_DOUBLE_COMPLEX), SAME(MPI_CHARACTER), SAME(MPI_LONG_DOUBLE),
    SAME(MPI_C_LONG_DOUBLE_COMPLEX), SAME(MPI_CXX_LONG_DOUBLE_COMPLEX), SAME(MPI_FLOAT_INT),
    SAME(MPI_DOUBLE_INT), SAME(MPI_LONG_INT), SAME(MPI_2INT), SAME(MPI_SHORT_INT),
    SAME(MPI_LONG_DOUBLE_INT), SAME(MPI_2REAL), SAME(MPI_2DOUBLE_PRECISION), SAME(MPI_2INTEGER),
    SAME(MPI_C_BOOL), SAME(MPI_CXX_BOOL), SAME(MPI_WCHAR), SAME(MPI_INT8_T), SAME(MPI_UINT8_T),
    SAME(MPI_CHAR), SAME(MPI_SIGNED_CHAR), SAME(MPI_UNSIGNED_CHAR), SAME(MPI_BYTE),
    SAME(MPI_INT16_T), SAME(MPI_UINT16_T), SAME(MPI_INT32_T), SAME(MPI_UINT32_T),
    SAME(MPI_INT64_T), SAME(MPI_UINT64_T), SAME(MPI_LOGICAL1), SAME(MPI_INTEGER1),
    SAME(MPI_LOGICAL2), SAME(MPI_INTEGER2), SAME(MPI_REAL2), SAME(MPI_LOGICAL4),
    SAME(MPI_INTEGER4), SAME(MPI_REAL4), SAME(MPI_COMPLEX4), SAME(MPI_LOGICAL8),
    SAME(MPI_INTEGER8), SAME(MPI_REAL8), SAME(MPI_COMPLEX8), SAME(MPI_LOGICAL16),
    SAME(MPI_INTEGER16), SAME(MPI_REAL16), SAME(MPI_COMPLEX16), SAME(MPI_COMPLEX32),
    /* MPI-1's bound markers, which MPI-3.0 removed: an extension of ours
     * (docs/bindings.md), in a slot the standard ABI leaves unassigned. */
    SAME(MPI_LB), SAME(MPI_UB),
};
enum { NALL = sizeof(all) / sizeof(all[0]) };

static void check_name(MPI_Datatype t, const char *constant, const char *want)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = -1;
    memset(name, '#', sizeof(name));
    CHECK_MPI(MPI_Type_get_name(t, name, &len));
    CHECK(strcmp(name, want) == 0 && len == (int)strlen(want),
          "MPI_Type_get_name(%s) = \"%.*s\" (length %d), expected \"%s\"", constant,
          (int)sizeof(name) - 1, name, len, want);
}

static void test_constants(void)
{
    for (int i = 0; i < NALL; i++)
        check_name(all[i].t, all[i].constant, all[i].name);
    /* The synonyms really are one handle in this ABI (otherwise each could
     * have its own name, and this test would have to say so). */
    CHECK(MPI_LONG_LONG == MPI_LONG_LONG_INT, "MPI_LONG_LONG and MPI_LONG_LONG_INT differ");
    CHECK(MPI_C_FLOAT_COMPLEX == MPI_C_COMPLEX, "MPI_C_FLOAT_COMPLEX and MPI_C_COMPLEX differ");
}

/* Every value of the predefined datatype range that MPI_Type_get_name
 * accepts is one of the constants above, and says its name. */
static void test_every_handle(void)
{
    int found = 0;
    for (uintptr_t v = (uintptr_t)MPI_DATATYPE_NULL + 1; v < (uintptr_t)MPI_DATATYPE_NULL + 0x100; v++) {
        MPI_Datatype t = (MPI_Datatype)v;
        char name[MPI_MAX_OBJECT_NAME];
        int len = -1;
        if (MPI_Type_get_name(t, name, &len) != MPI_SUCCESS)
            continue;
        int known = 0;
        for (int i = 0; i < NALL && !known; i++)
            known = all[i].t == t;
        CHECK(known, "predefined handle %#lx (\"%s\") is not a constant this test knows",
              (unsigned long)v, name);
        found++;
    }
    CHECK_EQ(found, NALL - 2);          /* two constants are synonyms */
}

/* A name set on one of a pair of synonyms is the other's too (one
 * object); setting it back restores the standard name. */
static void test_set_on_synonym(void)
{
    CHECK_MPI(MPI_Type_set_name(MPI_LONG_LONG, "my long long"));
    check_name(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", "my long long");
    CHECK_MPI(MPI_Type_set_name(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"));
    check_name(MPI_LONG_LONG, "MPI_LONG_LONG", "MPI_LONG_LONG_INT");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    dt_errors_return();
    test_constants();
    test_every_handle();
    test_set_on_synonym();
    return uzt_finish("dt_names");
}
