C     f77_basic.f -- mpif.h from fixed-form Fortran 77, as legacy codes
C     use it: point-to-point with status checks, collectives with
C     MPI_IN_PLACE, derived datatypes, MPI_COMM_SPLIT, a Cartesian
C     topology, MPI_ERRORS_RETURN and error classes, strings.  Every
C     value is checked; at 1, 2 and 4 ranks.
      PROGRAM F77BASIC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NFAIL, MYRANK
      COMMON /UZFT/ NFAIL, MYRANK
      INTEGER IERR, RANK, NP, TOTAL
      NFAIL = 0
      CALL MPI_INIT(IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      MYRANK = RANK
      CALL TPTP(RANK, NP)
      CALL TCOLL(RANK, NP)
      CALL TTYPES(RANK, NP)
      CALL TSPLIT(RANK, NP)
      CALL TCART(NP)
      CALL TERRS(NP)
      CALL MPI_ALLREDUCE(NFAIL, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (TOTAL .NE. 0) THEN
         IF (RANK .EQ. 0) PRINT *, 'FAIL fortran.mpif_h:', TOTAL
         STOP 1
      END IF
      IF (RANK .EQ. 0) PRINT *, 'PASS fortran.mpif_h'
      END

C     ---------------------------------------------------------- checks
      SUBROUTINE CHECK(COND, WHAT)
      LOGICAL COND
      CHARACTER*(*) WHAT
      INTEGER NFAIL, MYRANK
      COMMON /UZFT/ NFAIL, MYRANK
      IF (.NOT. COND) THEN
         NFAIL = NFAIL + 1
         PRINT *, 'FAIL rank ', MYRANK, ': ', WHAT
      END IF
      END

      SUBROUTINE CHECKI(GOT, WANT, WHAT)
      INTEGER GOT, WANT
      CHARACTER*(*) WHAT
      INTEGER NFAIL, MYRANK
      COMMON /UZFT/ NFAIL, MYRANK
      IF (GOT .NE. WANT) THEN
         NFAIL = NFAIL + 1
         PRINT *, 'FAIL rank ', MYRANK, ': ', WHAT, ' =', GOT,
     &            ', expected', WANT
      END IF
      END

C     --------------------------------------------- point-to-point
      SUBROUTINE TPTP(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      INTEGER IERR, NEXT, PREV, I, COUNT, IDX
      INTEGER STATUS(MPI_STATUS_SIZE), STATS(MPI_STATUS_SIZE, 2)
      INTEGER REQS(2)
      DOUBLE PRECISION SBUF(100), RBUF(100)
      INTEGER ITAG
      NEXT = MOD(RANK + 1, NP)
      PREV = MOD(RANK + NP - 1, NP)
      DO 10 I = 1, 100
         SBUF(I) = RANK * 1000 + I
         RBUF(I) = -1
   10 CONTINUE
C     A ring: send to the next rank, receive from any, check the status.
      CALL MPI_SENDRECV(SBUF, 100, MPI_DOUBLE_PRECISION, NEXT, 10+RANK,
     &     RBUF, 100, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_SENDRECV')
      CALL CHECKI(STATUS(MPI_SOURCE), PREV, 'status(MPI_SOURCE)')
      CALL CHECKI(STATUS(MPI_TAG), 10 + PREV, 'status(MPI_TAG)')
      CALL MPI_GET_COUNT(STATUS, MPI_DOUBLE_PRECISION, COUNT, IERR)
      CALL CHECKI(COUNT, 100, 'MPI_GET_COUNT')
      CALL CHECK(RBUF(1) .EQ. PREV*1000+1 .AND.
     &           RBUF(100) .EQ. PREV*1000+100, 'ring data')
C     Nonblocking, a scalar buffer, MPI_STATUSES_IGNORE.
      ITAG = -1
      CALL MPI_IRECV(ITAG, 1, MPI_INTEGER, PREV, 3, MPI_COMM_WORLD,
     &               REQS(1), IERR)
      CALL MPI_ISEND(RANK, 1, MPI_INTEGER, NEXT, 3, MPI_COMM_WORLD,
     &               REQS(2), IERR)
      CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_WAITALL')
      CALL CHECKI(ITAG, PREV, 'irecv scalar')
      CALL CHECKI(REQS(1), MPI_REQUEST_NULL, 'request after wait')
C     MPI_WAITANY counts from 1; a request of MPI_PROC_NULL.
      CALL MPI_IRECV(RBUF, 5, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 0,
     &               MPI_COMM_WORLD, REQS(1), IERR)
      REQS(2) = MPI_REQUEST_NULL
      CALL MPI_WAITANY(2, REQS, IDX, STATUS, IERR)
      CALL CHECKI(IDX, 1, 'MPI_WAITANY index')
      CALL CHECKI(STATUS(MPI_SOURCE), MPI_PROC_NULL, 'PROC_NULL src')
      CALL CHECKI(STATUS(MPI_TAG), MPI_ANY_TAG, 'PROC_NULL tag')
      CALL MPI_WAITALL(2, REQS, STATS, IERR)
      CALL MPI_RECV(RBUF, 1, MPI_DOUBLE_PRECISION, MPI_PROC_NULL, 0,
     &              MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_RECV from MPI_PROC_NULL')
      END

C     ------------------------------------------------ collectives
      SUBROUTINE TCOLL(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      INTEGER IERR, I, ISUM, IV(64), IALL(64), J
      DOUBLE PRECISION D(10), DSUM
      DO 10 I = 1, 10
         D(I) = 0
         IF (RANK .EQ. 0) D(I) = I * 0.5D0
   10 CONTINUE
      CALL MPI_BCAST(D, 10, MPI_DOUBLE_PRECISION, 0, MPI_COMM_WORLD,
     &               IERR)
      CALL CHECK(D(10) .EQ. 5.0D0, 'MPI_BCAST')
C     MPI_IN_PLACE everywhere.
      ISUM = RANK + 1
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL CHECKI(ISUM, NP * (NP + 1) / 2, 'ALLREDUCE IN_PLACE')
      DSUM = RANK
      IF (RANK .EQ. 0) THEN
         CALL MPI_REDUCE(MPI_IN_PLACE, DSUM, 1, MPI_DOUBLE_PRECISION,
     &                   MPI_MAX, 0, MPI_COMM_WORLD, IERR)
         CALL CHECK(DSUM .EQ. NP - 1, 'REDUCE IN_PLACE MAX')
      ELSE
         CALL MPI_REDUCE(DSUM, DSUM, 1, MPI_DOUBLE_PRECISION,
     &                   MPI_MAX, 0, MPI_COMM_WORLD, IERR)
      END IF
      DO 20 I = 1, NP
         IV(I) = -1
   20 CONTINUE
      IV(RANK + 1) = 7 * RANK
      CALL MPI_ALLGATHER(MPI_IN_PLACE, 0, MPI_INTEGER, IV, 1,
     &                   MPI_INTEGER, MPI_COMM_WORLD, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'ALLGATHER IN_PLACE')
      DO 30 I = 1, NP
         CALL CHECKI(IV(I), 7 * (I - 1), 'ALLGATHER value')
   30 CONTINUE
      IV(1) = RANK
      IF (RANK .EQ. 0) THEN
         CALL MPI_GATHER(MPI_IN_PLACE, 1, MPI_INTEGER, IV, 1,
     &                   MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
         DO 40 I = 1, NP
            CALL CHECKI(IV(I), I - 1, 'GATHER IN_PLACE value')
   40    CONTINUE
      ELSE
         CALL MPI_GATHER(IV, 1, MPI_INTEGER, IV, 1,
     &                   MPI_INTEGER, 0, MPI_COMM_WORLD, IERR)
      END IF
      CALL MPI_SCAN(RANK, ISUM, 1, MPI_INTEGER, MPI_SUM,
     &              MPI_COMM_WORLD, IERR)
      CALL CHECKI(ISUM, RANK * (RANK + 1) / 2, 'MPI_SCAN')
      DO 50 I = 1, NP
         IV(I) = 100 * RANK + I - 1
   50 CONTINUE
      CALL MPI_ALLTOALL(IV, 1, MPI_INTEGER, IALL, 1, MPI_INTEGER,
     &                  MPI_COMM_WORLD, IERR)
      DO 60 J = 1, NP
         CALL CHECKI(IALL(J), 100 * (J - 1) + RANK, 'MPI_ALLTOALL')
   60 CONTINUE
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_BARRIER')
      END

C     ----------------------------------------------- derived types
      SUBROUTINE TTYPES(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      INTEGER IERR, ROWT, STRT, PARTNER, I, J, SIZE
      INTEGER BLENS(2), TYPES(2)
      INTEGER(KIND=MPI_ADDRESS_KIND) DISPS(2), BASE, LB, EXTENT
      DOUBLE PRECISION A(4, 5), B(4, 5)
      INTEGER N
      DOUBLE PRECISION X
      COMMON /REC/ X, N
      INTEGER STATUS(MPI_STATUS_SIZE)
      PARTNER = RANK + 1
      IF (MOD(RANK, 2) .EQ. 1) PARTNER = RANK - 1
      IF (PARTNER .GE. NP) PARTNER = RANK
      DO 10 J = 1, 5
         DO 11 I = 1, 4
            A(I, J) = 10 * I + J + 100 * RANK
            B(I, J) = 0
   11    CONTINUE
   10 CONTINUE
C     Row 2 of a column-major 4x5 array: 5 elements 4 apart.
      CALL MPI_TYPE_VECTOR(5, 1, 4, MPI_DOUBLE_PRECISION, ROWT, IERR)
      CALL MPI_TYPE_COMMIT(ROWT, IERR)
      CALL MPI_TYPE_SIZE(ROWT, SIZE, IERR)
      CALL CHECKI(SIZE, 40, 'MPI_TYPE_SIZE of the row type')
      CALL MPI_SENDRECV(A(2, 1), 1, ROWT, PARTNER, 5, B(3, 1), 1, ROWT,
     &                  PARTNER, 5, MPI_COMM_WORLD, STATUS, IERR)
      DO 20 J = 1, 5
         CALL CHECK(B(3, J) .EQ. 20 + J + 100 * PARTNER, 'row received')
         CALL CHECK(B(2, J) .EQ. 0, 'row type wrote outside the row')
   20 CONTINUE
      CALL MPI_TYPE_FREE(ROWT, IERR)
      CALL CHECKI(ROWT, MPI_DATATYPE_NULL, 'type after MPI_TYPE_FREE')
C     A struct over a common block, with absolute addresses.
      X = 1.5D0 * RANK
      N = RANK + 42
      CALL MPI_GET_ADDRESS(X, DISPS(1), IERR)
      CALL MPI_GET_ADDRESS(N, DISPS(2), IERR)
      BASE = DISPS(1)
      DISPS(1) = DISPS(1) - BASE
      DISPS(2) = DISPS(2) - BASE
      BLENS(1) = 1
      BLENS(2) = 1
      TYPES(1) = MPI_DOUBLE_PRECISION
      TYPES(2) = MPI_INTEGER
      CALL MPI_TYPE_CREATE_STRUCT(2, BLENS, DISPS, TYPES, STRT, IERR)
      CALL MPI_TYPE_COMMIT(STRT, IERR)
      CALL MPI_TYPE_GET_EXTENT(STRT, LB, EXTENT, IERR)
      CALL CHECK(EXTENT .EQ. 16, 'struct extent')
      CALL MPI_SENDRECV_REPLACE(X, 1, STRT, PARTNER, 6, PARTNER, 6,
     &                          MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECK(X .EQ. 1.5D0 * PARTNER, 'struct double')
      CALL CHECKI(N, PARTNER + 42, 'struct integer')
      CALL MPI_TYPE_FREE(STRT, IERR)
      END

C     --------------------------------------------------- comm split
      SUBROUTINE TSPLIT(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      INTEGER IERR, SUB, SRANK, SSIZE, ISUM, RES
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, MOD(RANK, 2), -RANK, SUB,
     &                    IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_COMM_SPLIT')
      CALL MPI_COMM_SIZE(SUB, SSIZE, IERR)
      CALL MPI_COMM_RANK(SUB, SRANK, IERR)
      IF (MOD(RANK, 2) .EQ. 0) THEN
         CALL CHECKI(SSIZE, (NP + 1) / 2, 'even group size')
      ELSE
         CALL CHECKI(SSIZE, NP / 2, 'odd group size')
      END IF
C     key = -rank: the order is reversed.
      CALL CHECKI(SRANK, SSIZE - 1 - RANK / 2, 'rank in the split')
      CALL MPI_ALLREDUCE(RANK, ISUM, 1, MPI_INTEGER, MPI_SUM, SUB,
     &                   IERR)
      IF (NP .EQ. 4) CALL CHECKI(ISUM, 2 + 2 * MOD(RANK, 2), 'sum')
      CALL MPI_COMM_COMPARE(SUB, MPI_COMM_WORLD, RES, IERR)
      IF (NP .EQ. 1) THEN
         CALL CHECKI(RES, MPI_CONGRUENT, 'split of one rank')
      ELSE
         CALL CHECKI(RES, MPI_UNEQUAL, 'MPI_COMM_COMPARE')
      END IF
      CALL MPI_COMM_FREE(SUB, IERR)
      CALL CHECKI(SUB, MPI_COMM_NULL, 'comm after MPI_COMM_FREE')
      END

C     ------------------------------------------------ Cartesian
      SUBROUTINE TCART(NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NP
      INTEGER IERR, DIMS(2), CART, CRANK, COORDS(2), SRC, DST, R
      INTEGER GDIMS(2), GCOORDS(2), ROWC, RSIZE, TOPO, NDIMS
      LOGICAL PERIODS(2), GPER(2), REMAIN(2)
      DIMS(1) = 0
      DIMS(2) = 0
      CALL MPI_DIMS_CREATE(NP, 2, DIMS, IERR)
      CALL CHECKI(DIMS(1) * DIMS(2), NP, 'MPI_DIMS_CREATE')
      CALL CHECK(DIMS(1) .GE. DIMS(2), 'dims are non-increasing')
      PERIODS(1) = .TRUE.
      PERIODS(2) = .FALSE.
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 2, DIMS, PERIODS, .FALSE.,
     &                     CART, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_CART_CREATE')
      CALL MPI_TOPO_TEST(CART, TOPO, IERR)
      CALL CHECKI(TOPO, MPI_CART, 'MPI_TOPO_TEST')
      CALL MPI_CARTDIM_GET(CART, NDIMS, IERR)
      CALL CHECKI(NDIMS, 2, 'MPI_CARTDIM_GET')
      CALL MPI_COMM_RANK(CART, CRANK, IERR)
      CALL MPI_CART_COORDS(CART, CRANK, 2, COORDS, IERR)
C     Row-major ranks: rank = c1 * dims(2) + c2.
      CALL CHECKI(CRANK, COORDS(1) * DIMS(2) + COORDS(2), 'coords')
      CALL MPI_CART_RANK(CART, COORDS, R, IERR)
      CALL CHECKI(R, CRANK, 'MPI_CART_RANK')
      CALL MPI_CART_GET(CART, 2, GDIMS, GPER, GCOORDS, IERR)
      CALL CHECKI(GDIMS(1), DIMS(1), 'MPI_CART_GET dims')
      CALL CHECK(GPER(1) .AND. .NOT. GPER(2), 'MPI_CART_GET periods')
      CALL CHECKI(GCOORDS(2), COORDS(2), 'MPI_CART_GET coords')
C     Periodic in the first dimension, not in the second.
      CALL MPI_CART_SHIFT(CART, 0, 1, SRC, DST, IERR)
      CALL CHECKI(DST, MOD(COORDS(1) + 1, DIMS(1)) * DIMS(2)
     &            + COORDS(2), 'shift dst (periodic)')
      CALL MPI_CART_SHIFT(CART, 1, 1, SRC, DST, IERR)
      IF (COORDS(2) .EQ. DIMS(2) - 1) THEN
         CALL CHECKI(DST, MPI_PROC_NULL, 'shift off the edge')
      ELSE
         CALL CHECKI(DST, CRANK + 1, 'shift dst')
      END IF
      REMAIN(1) = .FALSE.
      REMAIN(2) = .TRUE.
      CALL MPI_CART_SUB(CART, REMAIN, ROWC, IERR)
      CALL MPI_COMM_SIZE(ROWC, RSIZE, IERR)
      CALL CHECKI(RSIZE, DIMS(2), 'MPI_CART_SUB size')
      CALL MPI_COMM_FREE(ROWC, IERR)
      CALL MPI_COMM_FREE(CART, IERR)
      END

C     ------------------------------ errors returned, strings
      SUBROUTINE TERRS(NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NP
      INTEGER IERR, ECLASS, RLEN, X, L
      CHARACTER*(MPI_MAX_ERROR_STRING) MSG
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) HOST
      LOGICAL FLAG
      DOUBLE PRECISION T1
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &                             IERR)
      CALL MPI_SEND(X, 1, MPI_INTEGER, NP + 5, 0, MPI_COMM_WORLD, IERR)
      CALL CHECK(IERR .NE. MPI_SUCCESS, 'send to a bad rank fails')
      CALL MPI_ERROR_CLASS(IERR, ECLASS, X)
      CALL CHECKI(ECLASS, MPI_ERR_RANK, 'class of a bad rank')
      MSG = 'x'
      CALL MPI_ERROR_STRING(IERR, MSG, RLEN, X)
      CALL CHECK(RLEN .GT. 0 .AND. RLEN .LE. MPI_MAX_ERROR_STRING,
     &           'MPI_ERROR_STRING length')
      CALL CHECK(MSG(RLEN+1:) .EQ. ' ', 'error string blank-padded')
      CALL MPI_SEND(X, -1, MPI_INTEGER, 0, 0, MPI_COMM_WORLD, IERR)
      CALL MPI_ERROR_CLASS(IERR, ECLASS, X)
      CALL CHECKI(ECLASS, MPI_ERR_COUNT, 'class of a negative count')
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD,
     &                             MPI_ERRORS_ARE_FATAL, IERR)
C     Names: trailing blanks are dropped going in, added coming out.
      CALL MPI_COMM_SET_NAME(MPI_COMM_WORLD, 'world of f77   ', IERR)
      NAME = 'garbage'
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, NAME, RLEN, IERR)
      CALL CHECKI(RLEN, 12, 'MPI_COMM_GET_NAME length')
      CALL CHECK(NAME .EQ. 'world of f77', 'MPI_COMM_GET_NAME')
      CALL MPI_GET_PROCESSOR_NAME(HOST, L, IERR)
      CALL CHECK(L .GT. 0 .AND. HOST(1:L) .NE. ' ', 'processor name')
      CALL MPI_INITIALIZED(FLAG, IERR)
      CALL CHECK(FLAG, 'MPI_INITIALIZED')
      T1 = MPI_WTIME()
      CALL CHECK(MPI_WTIME() .GE. T1 .AND. MPI_WTICK() .GT. 0, 'WTIME')
      END
