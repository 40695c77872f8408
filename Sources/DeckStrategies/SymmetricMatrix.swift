/// A dense symmetric n x n matrix of doubles, stored row-major in full (n^2 doubles, 8 n^2
/// bytes), for `ease`'s closed form. The operations below keep the lower triangle (column <=
/// row) up to date and use the strict upper triangle as scratch, until `mirrorLower()` copies
/// the lower triangle over it.
///
/// The inverse is computed in place by blocked Gauss-Jordan sweeps (below): n^3 floating-point
/// operations, the same count as a Cholesky factorisation followed by the inverse from the
/// factor (LAPACK's potrf, trtri and lauum), a third of an LU-based inverse, and all of them in
/// one kernel (a symmetric rank-k update of the whole lower triangle). One thread, in a fixed
/// order: the same input gives the same bits every time.
package struct SymmetricMatrix: Sendable, Equatable {
  package let n: Int
  /// Row-major: element (i, j) at `storage[i * n + j]`.
  package var storage: [Double]

  /// The zero matrix.
  package init(n: Int) {
    precondition(n >= 0, "a matrix has at least 0 rows")
    self.n = n
    storage = [Double](repeating: 0, count: n * n)
  }

  /// The element (i, j) read from the lower triangle (the kept one), for either order of i, j.
  package subscript(i: Int, j: Int) -> Double {
    i >= j ? storage[i * n + j] : storage[j * n + i]
  }

  /// Copies the lower triangle over the upper one: afterwards every element is its own.
  package mutating func mirrorLower() {
    let n = n
    // Tiles of 32 x 32, so that the column-wise reads stay in the cache.
    let tile = 32
    storage.withUnsafeMutableBufferPointer { a in
      for i0 in stride(from: 0, to: n, by: tile) {
        for j0 in stride(from: i0, to: n, by: tile) {
          for i in i0..<min(i0 + tile, n) {
            let low = max(j0, i + 1)
            let high = min(j0 + tile, n)
            guard low < high else { continue }
            for j in low..<high { a[i * n + j] = a[j * n + i] }
          }
        }
      }
    }
  }

  /// Replaces the matrix, which must be symmetric positive definite (its lower triangle is
  /// read), with its inverse (in the lower triangle). Returns false, with the matrix spoilt,
  /// when a pivot block is not positive definite (the matrix is not, or is too close to
  /// singular for doubles).
  ///
  /// The sweep of block K (pivots k0..<k1) of the partition into K and the rest R turns
  ///
  ///     A_KK -> -A_KK^-1,   A_RK -> A_RK A_KK^-1,   A_RR -> A_RR - A_RK A_KK^-1 A_KR
  ///
  /// and sweeping every block in turn leaves -A^-1 (Goodnight 1979). Each pivot block is a
  /// Schur complement of the matrix, positive definite when the matrix is, so it is inverted
  /// through its Cholesky factor L: with V = A_RK L^-T, the update of A_RR is the symmetric
  /// rank-k update A_RR - V V^T, and A_RK A_KK^-1 = V L^-1.
  package mutating func invertPositiveDefinite(blockSize: Int = 48) -> Bool {
    let n = n
    guard n > 0 else { return true }
    let nb = max(1, min(blockSize, n))
    let tiles = (n + 3) / 4
    // V, n x nb, packed in tiles of 4 rows: element (i, p) at packed[(i / 4) * 4 * nb + p * 4
    // + i % 4], so that the kernel reads 4 consecutive values per p for a row tile and for a
    // column tile alike. Rows beyond n, and the rows of the block being swept, stay 0.
    var packed = [Double](repeating: 0, count: tiles * 4 * nb)
    var factor = [Double](repeating: 0, count: nb * nb)
    var inverse = [Double](repeating: 0, count: nb * nb)
    var row = [Double](repeating: 0, count: nb)
    var solved = [Double](repeating: 0, count: nb)
    var ok = true
    storage.withUnsafeMutableBufferPointer { a in
      packed.withUnsafeMutableBufferPointer { v in
        var k0 = 0
        while k0 < n {
          let kb = min(nb, n - k0)
          let k1 = k0 + kb
          // The pivot block's Cholesky factor L (lower, kb x kb, row-major in `factor`).
          guard Self.cholesky(a, n: n, at: k0, count: kb, into: &factor) else {
            ok = false
            return
          }
          Self.invertLower(factor, count: kb, into: &inverse)
          // V and the new A_RK, row by row of the rest.
          if kb != nb {
            // The last, narrower block: a packing of its own width.
            for index in v.indices { v[index] = 0 }
          }
          for i in 0..<n where i < k0 || i >= k1 {
            // Row i of A_RK: to the right of the diagonal in the lower triangle for i >= k1,
            // column i of the block's rows for i < k0.
            if i >= k1 {
              for p in 0..<kb { row[p] = a[i * n + k0 + p] }
            } else {
              for p in 0..<kb { row[p] = a[(k0 + p) * n + i] }
            }
            // v L^T = row (forward substitution), then the new row = v L^-1.
            for p in 0..<kb {
              var s = row[p]
              for q in 0..<p { s -= solved[q] * factor[p * kb + q] }
              solved[p] = s / factor[p * kb + p]
            }
            let base = (i / 4) * 4 * kb + (i % 4)
            for p in 0..<kb { v[base + p * 4] = solved[p] }
            for p in 0..<kb {
              var s = 0.0
              for q in p..<kb { s += solved[q] * inverse[q * kb + p] }
              if i >= k1 { a[i * n + k0 + p] = s } else { a[(k0 + p) * n + i] = s }
            }
          }
          for i in k0..<k1 {
            let base = (i / 4) * 4 * kb + (i % 4)
            for p in 0..<kb { v[base + p * 4] = 0 }
          }
          // A_KK -> -(L^-T L^-1), lower triangle.
          for i in 0..<kb {
            for j in 0...i {
              var s = 0.0
              for q in i..<kb { s += inverse[q * kb + i] * inverse[q * kb + j] }
              a[(k0 + i) * n + k0 + j] = -s
            }
          }
          // A_RR -> A_RR - V V^T (the block's own rows and columns of V are 0).
          Self.subtractProducts(a, n: n, packed: UnsafeBufferPointer(v), width: kb, tiles: tiles)
          k0 = k1
        }
      }
    }
    guard ok else { return false }
    // Every block swept: the matrix holds -A^-1.
    for i in 0..<n {
      for j in 0...i { storage[i * n + j] = -storage[i * n + j] }
    }
    return true
  }

  /// The Cholesky factor of the diagonal block at (k0, k0) of size `count`, read from the lower
  /// triangle of `a` (not written); false when the block is not positive definite. The one
  /// Cholesky of the module (`Dense.cholesky` is the whole-matrix case).
  static func cholesky(
    _ a: UnsafeMutableBufferPointer<Double>, n: Int, at k0: Int, count kb: Int,
    into l: inout [Double]
  ) -> Bool {
    for i in 0..<kb {
      for j in 0...i {
        var s = a[(k0 + i) * n + k0 + j]
        for q in 0..<j { s -= l[i * kb + q] * l[j * kb + q] }
        if i == j {
          guard s > 0, s.isFinite else { return false }
          l[i * kb + i] = s.squareRoot()
        } else {
          l[i * kb + j] = s / l[j * kb + j]
        }
      }
    }
    return true
  }

  /// The inverse of a lower-triangular `count` x `count` matrix (row-major), lower triangular
  /// too.
  private static func invertLower(_ l: [Double], count kb: Int, into x: inout [Double]) {
    for index in 0..<(kb * kb) { x[index] = 0 }
    // Column j of X: L x = e_j, forward substitution from row j down.
    for j in 0..<kb {
      x[j * kb + j] = 1 / l[j * kb + j]
      for i in (j + 1)..<max(j + 1, kb) {
        var s = 0.0
        for q in j..<i { s -= l[i * kb + q] * x[q * kb + j] }
        x[i * kb + j] = s / l[i * kb + i]
      }
    }
  }

  /// a[i][j] -= sum over p of V[i][p] V[j][p] for every j <= i (and some j above the diagonal,
  /// in the diagonal 4 x 4 tiles: scratch). Tiles of 4 x 4 of the result, each summed in
  /// registers over p, in column strips whose packed V stays in the cache.
  private static func subtractProducts(
    _ a: UnsafeMutableBufferPointer<Double>, n: Int, packed v: UnsafeBufferPointer<Double>,
    width kb: Int, tiles: Int
  ) {
    guard let c = a.baseAddress, let base = v.baseAddress else { return }
    let tileBytes = 4 * kb
    // Column strips of about 256 KiB of packed V.
    let strip = max(1, (1 << 15) / max(1, tileBytes))
    var jt0 = 0
    while jt0 < tiles {
      let jt1 = min(tiles, jt0 + strip)
      for it in jt0..<tiles {
        let rowTile = base + it * tileBytes
        let i0 = it * 4
        let rows = min(4, n - i0)
        for jt in jt0..<min(jt1, it + 1) {
          let j0 = jt * 4
          let (r0, r1, r2, r3) = kernel4x4(rowTile, base + jt * tileBytes, depth: kb)
          let cols = min(4, n - j0)
          if rows == 4 && cols == 4 {
            let t = c + i0 * n + j0
            store(t, r0)
            store(t + n, r1)
            store(t + 2 * n, r2)
            store(t + 3 * n, r3)
          } else {
            let sums = [r0, r1, r2, r3]
            for r in 0..<rows {
              for col in 0..<cols { c[(i0 + r) * n + j0 + col] -= sums[r][col] }
            }
          }
        }
      }
      jt0 = jt1
    }
  }

  @inline(__always)
  private static func store(_ t: UnsafeMutablePointer<Double>, _ sum: SIMD4<Double>) {
    let raw = UnsafeMutableRawPointer(t)
    raw.storeBytes(
      of: raw.loadUnaligned(as: SIMD4<Double>.self) - sum, as: SIMD4<Double>.self)
  }

  /// The 4 x 4 block sum over p of x[r][p] y[c][p] of two packed tiles: row r of the result.
  @inline(__always)
  private static func kernel4x4(
    _ x: UnsafePointer<Double>, _ y: UnsafePointer<Double>, depth: Int
  ) -> (SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>) {
    var s0 = SIMD4<Double>()
    var s1 = SIMD4<Double>()
    var s2 = SIMD4<Double>()
    var s3 = SIMD4<Double>()
    let xr = UnsafeRawPointer(x)
    let yr = UnsafeRawPointer(y)
    for p in 0..<depth {
      let b = yr.loadUnaligned(fromByteOffset: p * 32, as: SIMD4<Double>.self)
      let a = xr.loadUnaligned(fromByteOffset: p * 32, as: SIMD4<Double>.self)
      s0 += a[0] * b
      s1 += a[1] * b
      s2 += a[2] * b
      s3 += a[3] * b
    }
    return (s0, s1, s2, s3)
  }
}
