C     strings_greq_f77.f -- the issue 22 Fortran cases in fixed form
C     Fortran 77 with mpif.h, as legacy codes write them: info keys
C     and values with blanks, MPI_INFO_GET_STRING lengths,
C     MPI_INFO_CREATE_ENV before MPI_INIT, a generalized request
C     whose EXTERNAL procedures count down the program's EXTRA_STATE,
C     MPI_BSEND into a CHARACTER buffer sized from MPI_BSEND_OVERHEAD,
C     and datatype names.
      PROGRAM F77GREQ
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NFAIL, MYRANK
      COMMON /UZFT/ NFAIL, MYRANK
      INTEGER IERR, RANK, NP, TOTAL, INFO, NKEYS, NKEYS0
      NFAIL = 0
      MYRANK = -1
      CALL MPI_INFO_CREATE_ENV(INFO, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_INFO_CREATE_ENV before')
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS0, IERR)
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      MYRANK = RANK
      CALL MPI_INFO_CREATE_ENV(INFO, IERR)
      CALL MPI_INFO_GET_NKEYS(INFO, NKEYS, IERR)
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL CHECKI(NKEYS0, 7, 'MPI_INFO_CREATE_ENV keys before')
      CALL CHECKI(NKEYS, NKEYS0, 'MPI_INFO_CREATE_ENV keys after')
      CALL TINFO
      CALL TGREQ
      CALL TBSEND(RANK, NP)
      CALL TNAMES
      CALL MPI_ALLREDUCE(NFAIL, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &                   MPI_COMM_WORLD, IERR)
      CALL MPI_FINALIZE(IERR)
      IF (TOTAL .NE. 0) THEN
         IF (RANK .EQ. 0) PRINT *, 'FAIL fortran.strings_greq_f77:',
     &                             TOTAL
         STOP 1
      END IF
      IF (RANK .EQ. 0) PRINT *, 'PASS fortran.strings_greq_f77'
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

C     ------------------------------------------------------------ info
      SUBROUTINE TINFO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INFO, IERR, N, BUFL, I
      LOGICAL FLAG
      CHARACTER*(MPI_MAX_INFO_KEY) KEY
      CHARACTER*(MPI_MAX_INFO_VAL) VAL
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL MPI_INFO_SET(INFO, ' Key With Blanks ', ' no test ', IERR)
      CALL MPI_INFO_SET(INFO, 'file', '123456789', IERR)
      CALL MPI_INFO_GET_NTHKEY(INFO, 0, KEY, IERR)
      CALL CHECK(KEY .EQ. 'Key With Blanks', 'nthkey '//KEY(1:20))
      VAL = 'Canary'
      CALL MPI_INFO_GET(INFO, 'Key With Blanks', MPI_MAX_INFO_VAL,
     &                  VAL, FLAG, IERR)
      CALL CHECK(FLAG .AND. VAL .EQ. 'no test', 'get '//VAL(1:20))
      VAL = 'Canary'
      CALL MPI_INFO_GET(INFO, 'key with blanks', MPI_MAX_INFO_VAL,
     &                  VAL, FLAG, IERR)
      CALL CHECK(.NOT. FLAG .AND. VAL .EQ. 'Canary',
     &           'a missing key changed the value')
      VAL = 'Canary'
      BUFL = 2
      CALL MPI_INFO_GET_STRING(INFO, 'file', BUFL, VAL, FLAG, IERR)
      CALL CHECK(FLAG, 'get_string flag')
      CALL CHECKI(BUFL, 9, 'get_string length')
      CALL CHECK(VAL(1:2) .EQ. '12', 'get_string '//VAL(1:10))
      DO 10 I = 3, MPI_MAX_INFO_VAL
         IF (VAL(I:I) .NE. ' ') THEN
            CALL CHECKI(I, 0, 'non-blank after the value at')
            GOTO 11
         END IF
 10   CONTINUE
 11   CONTINUE
      CALL MPI_INFO_GET_NKEYS(INFO, N, IERR)
      CALL CHECKI(N, 2, 'nkeys')
      CALL MPI_INFO_FREE(INFO, IERR)
      END

C     ----------------------------------------- generalized requests
      SUBROUTINE QUERYF(EXTRA, STATUS, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER (KIND=MPI_ADDRESS_KIND) EXTRA
      INTEGER STATUS(MPI_STATUS_SIZE), IERR
      STATUS(MPI_SOURCE) = MPI_UNDEFINED
      STATUS(MPI_TAG) = MPI_UNDEFINED
      CALL MPI_STATUS_SET_CANCELLED(STATUS, .FALSE., IERR)
      CALL MPI_STATUS_SET_ELEMENTS(STATUS, MPI_BYTE, 0, IERR)
      IERR = MPI_SUCCESS
      END

      SUBROUTINE FREEF(EXTRA, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER (KIND=MPI_ADDRESS_KIND) EXTRA
      INTEGER IERR
      EXTRA = EXTRA - 1
      IERR = MPI_SUCCESS
      END

      SUBROUTINE CANCELF(EXTRA, COMPLETE, IERR)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER (KIND=MPI_ADDRESS_KIND) EXTRA
      LOGICAL COMPLETE
      INTEGER IERR
      IERR = MPI_SUCCESS
      END

      SUBROUTINE TGREQ
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      EXTERNAL QUERYF, FREEF, CANCELF
C     In a common block: the procedures change it inside other calls.
      INTEGER (KIND=MPI_ADDRESS_KIND) EXTRA
      COMMON /GREQST/ EXTRA
      INTEGER REQ, IERR, STATUS(MPI_STATUS_SIZE)
      LOGICAL FLAG
      EXTRA = 1
      CALL MPI_GREQUEST_START(QUERYF, FREEF, CANCELF, EXTRA, REQ,
     &                        IERR)
      CALL MPI_TEST(REQ, FLAG, STATUS, IERR)
      CALL CHECK(.NOT. FLAG, 'incomplete request tested complete')
      CALL MPI_GREQUEST_COMPLETE(REQ, IERR)
      CALL MPI_WAIT(REQ, MPI_STATUS_IGNORE, IERR)
      CALL CHECKI(INT(EXTRA), 0, 'EXTRA_STATE after free')
      EXTRA = 5
      CALL MPI_GREQUEST_START(QUERYF, FREEF, CANCELF, EXTRA, REQ,
     &                        IERR)
      CALL MPI_GREQUEST_COMPLETE(REQ, IERR)
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL CHECKI(STATUS(MPI_SOURCE), MPI_UNDEFINED, 'status source')
      CALL CHECKI(INT(EXTRA), 4, 'EXTRA_STATE, second request')
      END

C     ------------------------------------------------- buffered send
      SUBROUTINE TBSEND(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP, N, BSIZE
      PARAMETER (N=10, BSIZE=MPI_BSEND_OVERHEAD+4*N)
      CHARACTER DBUF(BSIZE)
      INTEGER BUF(N), I, IERR, DSIZE
      CALL MPI_BUFFER_ATTACH(DBUF, BSIZE, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_BUFFER_ATTACH')
      DO 20 I = 1, N
         BUF(I) = RANK * 100 + I
 20   CONTINUE
      CALL MPI_BSEND(BUF, N, MPI_INTEGER, MOD(RANK + 1, NP), 4,
     &               MPI_COMM_WORLD, IERR)
      CALL CHECKI(IERR, MPI_SUCCESS, 'MPI_BSEND')
      CALL MPI_RECV(BUF, N, MPI_INTEGER, MOD(RANK + NP - 1, NP), 4,
     &              MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      DO 21 I = 1, N
         CALL CHECKI(BUF(I), MOD(RANK + NP - 1, NP) * 100 + I,
     &               'buffered message')
 21   CONTINUE
      CALL MPI_BUFFER_DETACH(DBUF, DSIZE, IERR)
      CALL CHECKI(DSIZE, BSIZE, 'MPI_BUFFER_DETACH size')
      END

C     --------------------------------------------------------- names
      SUBROUTINE NAMEIS(T, WANT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER T, RLEN, IERR
      CHARACTER*(*) WANT
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      NAME = 'junk'
      CALL MPI_TYPE_GET_NAME(T, NAME, RLEN, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. NAME .EQ. WANT .AND.
     &           RLEN .EQ. LEN(WANT),
     &           'name '//NAME(1:24)//' for '//WANT)
      END

      SUBROUTINE TNAMES
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CALL NAMEIS(MPI_INTEGER, 'MPI_INTEGER')
      CALL NAMEIS(MPI_REAL8, 'MPI_REAL8')
      CALL NAMEIS(MPI_COMPLEX32, 'MPI_COMPLEX32')
      CALL NAMEIS(MPI_LOGICAL, 'MPI_LOGICAL')
      CALL NAMEIS(MPI_CHARACTER, 'MPI_CHARACTER')
      CALL NAMEIS(MPI_2REAL, 'MPI_2REAL')
      CALL NAMEIS(MPI_DOUBLE_COMPLEX, 'MPI_DOUBLE_COMPLEX')
      CALL NAMEIS(MPI_INTEGER16, 'MPI_INTEGER16')
      CALL NAMEIS(MPI_LONG_LONG_INT, 'MPI_LONG_LONG_INT')
      CALL NAMEIS(MPI_C_COMPLEX, 'MPI_C_COMPLEX')
      END
