! cg_poisson.f90 — a small application: the conjugate-gradient method on
! the 5-point Poisson problem  -Δu = f  on the unit square (u = 0 on the
! boundary), f chosen so that u = eˣ·x(1-x)·y(1-y), on an N×N grid split
! over a 2-D Cartesian process grid.  Each iteration exchanges halos
! with the four neighbours (MPI_Sendrecv; a strided MPI_Type_vector for
! the rows that are not contiguous in Fortran's column-major order) and
! reduces two dot products (MPI_Allreduce).
!
! It checks its own answer three ways: the recomputed residual
! ||f - A u|| is small, the error against the exact solution is of the
! size the discretisation predicts (O(h²)), and the same solve done by
! rank 0 alone (on MPI_COMM_SELF) takes the same number of iterations and
! gives the same solution up to rounding.
module poisson
   use mpi
   implicit none
   integer, parameter :: dp = kind(1d0)

   type grid
      integer :: comm                   ! Cartesian communicator
      integer :: n                      ! global interior points per side
      integer :: nx, ny                 ! local interior points
      integer :: x0, y0                 ! global index of the first local point - 1
      integer :: west, east, south, north
      integer :: rowtype                ! one i = const line of the local array
      double precision :: h
   end type
contains

   ! The block of 1..n that process c of p owns: (first - 1, length).
   subroutine block(n, p, c, first0, len)
      integer, intent(in) :: n, p, c
      integer, intent(out) :: first0, len
      len = n / p
      first0 = c * len + min(c, mod(n, p))
      if (c < mod(n, p)) len = len + 1
   end subroutine

   subroutine grid_init(g, parent, n)
      type(grid), intent(out) :: g
      integer, intent(in) :: parent, n
      integer :: np, dims(2), coords(2), rank, ierr
      call MPI_Comm_size(parent, np, ierr)
      dims = 0
      call MPI_Dims_create(np, 2, dims, ierr)
      call MPI_Cart_create(parent, 2, dims, [.false., .false.], .true., g%comm, ierr)
      call MPI_Comm_rank(g%comm, rank, ierr)
      call MPI_Cart_coords(g%comm, rank, 2, coords, ierr)
      call MPI_Cart_shift(g%comm, 0, 1, g%west, g%east, ierr)
      call MPI_Cart_shift(g%comm, 1, 1, g%south, g%north, ierr)
      g%n = n
      g%h = 1d0 / (n + 1)
      call block(n, dims(1), coords(1), g%x0, g%nx)
      call block(n, dims(2), coords(2), g%y0, g%ny)
      ! u(0:nx+1, 0:ny+1): a line of constant i has ny elements nx+2 apart.
      call MPI_Type_vector(g%ny, 1, g%nx + 2, MPI_DOUBLE_PRECISION, g%rowtype, ierr)
      call MPI_Type_commit(g%rowtype, ierr)
   end subroutine

   subroutine grid_free(g)
      type(grid), intent(inout) :: g
      integer :: ierr
      call MPI_Type_free(g%rowtype, ierr)
      call MPI_Comm_free(g%comm, ierr)
   end subroutine

   ! Fill the halo of u from the neighbours (zero outside the domain).
   subroutine halo(g, u)
      type(grid), intent(in) :: g
      double precision, intent(inout) :: u(0:, 0:)
      integer :: ierr
      ! x direction: lines of constant i (strided).
      call MPI_Sendrecv(u(g%nx, 1), 1, g%rowtype, g%east, 1, u(0, 1), 1, g%rowtype, g%west, 1, &
                        g%comm, MPI_STATUS_IGNORE, ierr)
      call MPI_Sendrecv(u(1, 1), 1, g%rowtype, g%west, 2, u(g%nx + 1, 1), 1, g%rowtype, g%east, &
                        2, g%comm, MPI_STATUS_IGNORE, ierr)
      ! y direction: columns, contiguous.
      call MPI_Sendrecv(u(1, g%ny), g%nx, MPI_DOUBLE_PRECISION, g%north, 3, u(1, 0), g%nx, &
                        MPI_DOUBLE_PRECISION, g%south, 3, g%comm, MPI_STATUS_IGNORE, ierr)
      call MPI_Sendrecv(u(1, 1), g%nx, MPI_DOUBLE_PRECISION, g%south, 4, u(1, g%ny + 1), g%nx, &
                        MPI_DOUBLE_PRECISION, g%north, 4, g%comm, MPI_STATUS_IGNORE, ierr)
   end subroutine

   ! q = A p, with A the 5-point Laplacian times -1/h² (p's halo is current).
   subroutine apply(g, p, q)
      type(grid), intent(in) :: g
      double precision, intent(in) :: p(0:, 0:)
      double precision, intent(out) :: q(0:, 0:)
      integer :: i, j
      q = 0
      do j = 1, g%ny
         do i = 1, g%nx
            q(i, j) = (4 * p(i, j) - p(i - 1, j) - p(i + 1, j) - p(i, j - 1) - p(i, j + 1)) / g%h**2
         end do
      end do
   end subroutine

   double precision function dot(g, a, b)
      type(grid), intent(in) :: g
      double precision, intent(in) :: a(0:, 0:), b(0:, 0:)
      double precision :: local
      integer :: ierr
      local = sum(a(1:g%nx, 1:g%ny) * b(1:g%nx, 1:g%ny))
      call MPI_Allreduce(local, dot, 1, MPI_DOUBLE_PRECISION, MPI_SUM, g%comm, ierr)
   end function

   double precision function exact(g, i, j)
      type(grid), intent(in) :: g
      integer, intent(in) :: i, j
      double precision :: x, y
      x = (g%x0 + i) * g%h
      y = (g%y0 + j) * g%h
      exact = exp(x) * x * (1 - x) * y * (1 - y)
   end function

   ! -Δ of the exact solution.
   double precision function rhs(g, i, j)
      type(grid), intent(in) :: g
      integer, intent(in) :: i, j
      double precision :: x, y
      x = (g%x0 + i) * g%h
      y = (g%y0 + j) * g%h
      rhs = exp(x) * (x * (3 + x) * y * (1 - y) + 2 * x * (1 - x))
   end function

   ! Solve; return the iterations, the relative true residual, the largest
   ! error against the exact solution, and sum(u) and sum(u**2) over the grid.
   subroutine solve(parent, n, iters, relres, maxerr, usum, usq)
      integer, intent(in) :: parent, n
      integer, intent(out) :: iters
      double precision, intent(out) :: relres, maxerr, usum, usq
      type(grid) :: g
      double precision, allocatable :: u(:, :), r(:, :), p(:, :), q(:, :), f(:, :)
      double precision :: rr, rr0, rrnew, alpha, beta, local
      integer :: i, j, ierr
      call grid_init(g, parent, n)
      allocate (u(0:g%nx + 1, 0:g%ny + 1), r(0:g%nx + 1, 0:g%ny + 1), p(0:g%nx + 1, 0:g%ny + 1), &
                q(0:g%nx + 1, 0:g%ny + 1), f(0:g%nx + 1, 0:g%ny + 1))
      f = 0
      do j = 1, g%ny
         do i = 1, g%nx
            f(i, j) = rhs(g, i, j)
         end do
      end do
      u = 0
      r = f
      p = r
      rr = dot(g, r, r)
      rr0 = rr
      iters = 0
      do while (iters < 10 * n .and. rr > 1d-24 * rr0)
         call halo(g, p)
         call apply(g, p, q)
         alpha = rr / dot(g, p, q)
         u = u + alpha * p
         r = r - alpha * q
         rrnew = dot(g, r, r)
         beta = rrnew / rr
         rr = rrnew
         p = r + beta * p
         iters = iters + 1
      end do
      ! The true residual, recomputed from u.
      call halo(g, u)
      call apply(g, u, q)
      r = f - q
      relres = sqrt(dot(g, r, r) / rr0)
      local = 0
      do j = 1, g%ny
         do i = 1, g%nx
            local = max(local, abs(u(i, j) - exact(g, i, j)))
         end do
      end do
      call MPI_Allreduce(local, maxerr, 1, MPI_DOUBLE_PRECISION, MPI_MAX, g%comm, ierr)
      local = sum(u(1:g%nx, 1:g%ny))
      call MPI_Allreduce(local, usum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, g%comm, ierr)
      usq = dot(g, u, u)
      call grid_free(g)
   end subroutine
end module poisson

program cg_poisson
   use mpi
   use poisson
   implicit none
   integer, parameter :: n = 48
   integer :: ierr, rank, np, iters, iters1, bad, total
   double precision :: relres, maxerr, usum, usq, relres1, maxerr1, usum1, usq1, h

   call MPI_Init(ierr)
   call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
   call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
   h = 1d0 / (n + 1)
   bad = 0
   call solve(MPI_COMM_WORLD, n, iters, relres, maxerr, usum, usq)
   if (rank == 0) then
      write (*, '(a,i0,a,i0,a,i0,a,es9.2,a,es9.2)') 'cg_poisson: ', n, 'x', n, ' grid, ', iters, &
         ' iterations, residual ', relres, ', error ', maxerr
      if (relres > 1d-10) bad = bad + report('residual too large')
      ! Second order: the error is a modest multiple of h² (about h²/36 here).
      if (maxerr > h**2 .or. maxerr < 1d-3 * h**2) bad = bad + report('error not O(h²)')
      if (iters < n / 2) bad = bad + report('suspiciously few iterations')
      call solve(MPI_COMM_SELF, n, iters1, relres1, maxerr1, usum1, usq1)
      if (abs(iters - iters1) > 1) bad = bad + report('iterations differ from one process')
      if (abs(usum - usum1) > 1d-9 * abs(usum1)) bad = bad + report('sum(u) differs from one process')
      if (abs(usq - usq1) > 1d-9 * abs(usq1)) bad = bad + report('sum(u²) differs from one process')
      if (abs(maxerr - maxerr1) > 1d-9) bad = bad + report('error differs from one process')
   end if
   call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
   call MPI_Finalize(ierr)
   if (total /= 0) stop 1
   if (rank == 0) print '(a,i0,a)', 'PASS fortran.cg_poisson (', np, ' ranks)'

contains
   integer function report(what)
      character(len=*), intent(in) :: what
      print '(2a)', 'FAIL cg_poisson: ', what
      report = 1
   end function
end program cg_poisson
