! mpi1_removed.f - an MPI-1 style Fortran 77 program (include 'mpif.h')
! using the procedures MPI-3.0 removed: MPI_ADDRESS of COMMON data (which
! fits a default INTEGER when the program is not position-independent, as
! mpi1_removed.sh builds it), MPI_TYPE_STRUCT with absolute addresses
! sent from MPI_BOTTOM, the MPI_LB and MPI_UB markers with MPI_TYPE_LB,
! MPI_TYPE_UB and MPI_TYPE_EXTENT, MPI_TYPE_HVECTOR and MPI_TYPE_HINDEXED,
! and an MPI_ERRHANDLER_CREATE / SET / GET round trip whose handler runs.
! An address that does not fit is MPI_ERR_ARG, never a truncated one.
      PROGRAM MPI1
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RANK, NP, FAILS, TOTAL, TO, FROM, I, CLS
      INTEGER IBUF(10), JBUF(10), NCALLS, LASTCLS
      DOUBLE PRECISION D(3), E(3)
      COMMON /DATA/ IBUF, JBUF, D, E
      COMMON /HSTATE/ NCALLS, LASTCLS
      INTEGER A1, A2, BLEN(4), TYPES(4), DISP(4), STYPE, RTYPE
      INTEGER MTYPE, VTYPE, HTYPE, LB, UB, EXT, EH, GOT
      INTEGER(KIND=MPI_ADDRESS_KIND) BIG
      INTEGER STATUS(MPI_STATUS_SIZE)
      EXTERNAL MYHANDLER
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      FAILS = 0
      NCALLS = 0
      TO = MOD(RANK + 1, NP)
      FROM = MOD(RANK - 1 + NP, NP)
      DO I = 1, 10
         IBUF(I) = 100 * RANK + I
         JBUF(I) = -1
      END DO
      DO I = 1, 3
         D(I) = RANK + 0.5D0 * I
         E(I) = -1.0D0
      END DO

! The error handler round trip first (MPI_ERRORS_ARE_FATAL until then).
      CALL MPI_ERRHANDLER_CREATE(MYHANDLER, EH, IERR)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, EH, IERR)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, GOT, IERR)
      IF (GOT .NE. EH) CALL FAILED(FAILS, 'MPI_ERRHANDLER_GET')
      CALL MPI_ERRHANDLER_FREE(GOT, IERR)
      CALL MPI_SEND(IBUF, 1, MPI_INTEGER, NP + 5, 0, MPI_COMM_WORLD,
     &              IERR)
      IF (NCALLS .NE. 1 .OR. LASTCLS .NE. MPI_ERR_RANK)
     &   CALL FAILED(FAILS, 'the error handler did not run')
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_SELF, MPI_ERRORS_RETURN, IERR)
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, GOT, IERR)
      IF (GOT .NE. MPI_ERRORS_RETURN) CALL FAILED(FAILS, 'GET 2')
      CALL MPI_ERRHANDLER_FREE(EH, IERR)

! MPI_ADDRESS agrees with MPI_GET_ADDRESS.
      CALL MPI_ADDRESS(IBUF(1), A1, IERR)
      CALL MPI_ADDRESS(IBUF(3), A2, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAILED(FAILS, 'MPI_ADDRESS')
      IF (A2 - A1 .NE. 8) CALL FAILED(FAILS, 'address difference')
      CALL MPI_GET_ADDRESS(IBUF(3), BIG, IERR)
      IF (BIG .NE. A2) CALL FAILED(FAILS, 'MPI_GET_ADDRESS differs')
      CALL TOOFAR(FAILS)

! A struct of absolute addresses, sent from MPI_BOTTOM: IBUF(2:4) and
! D(1:2) go to JBUF(2:4) and E(1:2) of the next rank.
      BLEN(1) = 3
      BLEN(2) = 2
      TYPES(1) = MPI_INTEGER
      TYPES(2) = MPI_DOUBLE_PRECISION
      CALL MPI_ADDRESS(IBUF(2), DISP(1), IERR)
      CALL MPI_ADDRESS(D(1), DISP(2), IERR)
      CALL MPI_TYPE_STRUCT(2, BLEN, DISP, TYPES, STYPE, IERR)
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
      CALL MPI_ADDRESS(JBUF(2), DISP(1), IERR)
      CALL MPI_ADDRESS(E(1), DISP(2), IERR)
      CALL MPI_TYPE_STRUCT(2, BLEN, DISP, TYPES, RTYPE, IERR)
      CALL MPI_TYPE_COMMIT(RTYPE, IERR)
      CALL MPI_SENDRECV(MPI_BOTTOM, 1, STYPE, TO, 1, MPI_BOTTOM, 1,
     &                  RTYPE, FROM, 1, MPI_COMM_WORLD, STATUS, IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL FAILED(FAILS, 'MPI_BOTTOM send')
      DO I = 1, 10
         IF (I .GE. 2 .AND. I .LE. 4) THEN
            IF (JBUF(I) .NE. 100 * FROM + I)
     &         CALL FAILED(FAILS, 'struct integers')
         ELSE IF (JBUF(I) .NE. -1) THEN
            CALL FAILED(FAILS, 'struct wrote outside')
         END IF
      END DO
      IF (E(1) .NE. FROM + 0.5D0 .OR. E(2) .NE. FROM + 1.0D0 .OR.
     &    E(3) .NE. -1.0D0) CALL FAILED(FAILS, 'struct doubles')

! Markers: LB at -4, an INTEGER at 0, UB at 12.
      BLEN(1) = 1
      BLEN(2) = 1
      BLEN(3) = 1
      TYPES(1) = MPI_LB
      TYPES(2) = MPI_INTEGER
      TYPES(3) = MPI_UB
      DISP(1) = -4
      DISP(2) = 0
      DISP(3) = 12
      CALL MPI_TYPE_STRUCT(3, BLEN, DISP, TYPES, MTYPE, IERR)
      CALL MPI_TYPE_LB(MTYPE, LB, IERR)
      CALL MPI_TYPE_UB(MTYPE, UB, IERR)
      CALL MPI_TYPE_EXTENT(MTYPE, EXT, IERR)
      IF (LB .NE. -4 .OR. UB .NE. 12 .OR. EXT .NE. 16)
     &   CALL FAILED(FAILS, 'LB/UB markers')

! HVECTOR: IBUF(1) and IBUF(5) (stride 16 bytes); HINDEXED: IBUF(4),
! IBUF(1), IBUF(2).
      CALL MPI_TYPE_HVECTOR(2, 1, 16, MPI_INTEGER, VTYPE, IERR)
      CALL MPI_TYPE_COMMIT(VTYPE, IERR)
      CALL MPI_TYPE_EXTENT(VTYPE, EXT, IERR)
      IF (EXT .NE. 20) CALL FAILED(FAILS, 'hvector extent')
      BLEN(1) = 1
      BLEN(2) = 2
      DISP(1) = 12
      DISP(2) = 0
      CALL MPI_TYPE_HINDEXED(2, BLEN, DISP, MPI_INTEGER, HTYPE, IERR)
      CALL MPI_TYPE_COMMIT(HTYPE, IERR)
      CALL MPI_TYPE_UB(HTYPE, UB, IERR)
      IF (UB .NE. 16) CALL FAILED(FAILS, 'hindexed ub')
      CALL MPI_SENDRECV(IBUF, 1, VTYPE, TO, 2, JBUF, 2, MPI_INTEGER,
     &                  FROM, 2, MPI_COMM_WORLD, STATUS, IERR)
      IF (JBUF(1) .NE. 100 * FROM + 1 .OR. JBUF(2) .NE. 100 * FROM + 5)
     &   CALL FAILED(FAILS, 'hvector data')
      CALL MPI_SENDRECV(IBUF, 1, HTYPE, TO, 3, JBUF, 3, MPI_INTEGER,
     &                  FROM, 3, MPI_COMM_WORLD, STATUS, IERR)
      IF (JBUF(1) .NE. 100 * FROM + 4 .OR. JBUF(2) .NE. 100 * FROM + 1
     &    .OR. JBUF(3) .NE. 100 * FROM + 2)
     &   CALL FAILED(FAILS, 'hindexed data')
      CALL MPI_TYPE_EXTENT(MPI_DATATYPE_NULL, EXT, IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, I)
      IF (CLS .NE. MPI_ERR_TYPE) CALL FAILED(FAILS, 'extent of null')

      CALL MPI_TYPE_FREE(STYPE, IERR)
      CALL MPI_TYPE_FREE(RTYPE, IERR)
      CALL MPI_TYPE_FREE(MTYPE, IERR)
      CALL MPI_TYPE_FREE(VTYPE, IERR)
      CALL MPI_TYPE_FREE(HTYPE, IERR)
      CALL MPI_ALLREDUCE(FAILS, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) THEN
         IF (TOTAL .EQ. 0) THEN
            PRINT '(A,I0,A)', 'mpi1_removed.f: passed (', NP, ' ranks)'
         ELSE
            PRINT '(A,I0,A)', 'mpi1_removed.f: FAILED (', TOTAL,
     &            ' failures)'
         END IF
      END IF
      CALL MPI_FINALIZE(IERR)
      IF (TOTAL .NE. 0) STOP 1
      END

      SUBROUTINE FAILED(FAILS, WHAT)
      INTEGER FAILS
      CHARACTER*(*) WHAT
      FAILS = FAILS + 1
      PRINT '(2A)', 'FAIL: ', WHAT
      END

! An automatic array lives on the stack, far above 2 GiB: its address
! does not fit a default INTEGER.
      SUBROUTINE TOOFAR(FAILS)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER FAILS, A, IERR, CLS, L
      INTEGER(KIND=MPI_ADDRESS_KIND) BIG
      INTEGER LOCAL(2)
      CALL MPI_GET_ADDRESS(LOCAL, BIG, IERR)
      IF (BIG .LT. 2147483647_MPI_ADDRESS_KIND) RETURN
      A = 12345
      CALL MPI_ADDRESS(LOCAL, A, IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, L)
      IF (CLS .NE. MPI_ERR_ARG .OR. A .NE. 12345)
     &   CALL FAILED(FAILS, 'MPI_ADDRESS of a stack array')
      END

      SUBROUTINE MYHANDLER(COMM, CODE)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER COMM, CODE, IERR, NCALLS, LASTCLS
      COMMON /HSTATE/ NCALLS, LASTCLS
      NCALLS = NCALLS + 1
      CALL MPI_ERROR_CLASS(CODE, LASTCLS, IERR)
      END
