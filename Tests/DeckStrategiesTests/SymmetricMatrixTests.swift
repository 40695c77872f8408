import DeckCore
import Testing

@testable import DeckStrategies

/// The blocked in-place inverse behind `ease`, against a plain Gauss-Jordan elimination with
/// partial pivoting on the full matrix.
@Suite("Symmetric positive definite inverse")
struct SymmetricMatrixTests {
  /// A random symmetric positive definite matrix: A A^T / n + shift I, A with entries in
  /// [-1, 1) from a seeded stream (full storage, both triangles).
  static func randomSPD(n: Int, seed: UInt64, shift: Double = 0.5) -> [Double] {
    var random = RandomStream(seed: seed)
    let a = (0..<(n * n)).map { _ in 2 * random.nextDouble() - 1 }
    var m = [Double](repeating: 0, count: n * n)
    for i in 0..<n {
      for j in 0..<n {
        var s = 0.0
        for k in 0..<n { s += a[i * n + k] * a[j * n + k] }
        m[i * n + j] = s / Double(n) + (i == j ? shift : 0)
      }
    }
    return m
  }

  /// The inverse by Gauss-Jordan elimination with partial pivoting, on [M | I].
  static func naiveInverse(_ m: [Double], n: Int) -> [Double] {
    var a = m
    var x = [Double](repeating: 0, count: n * n)
    for i in 0..<n { x[i * n + i] = 1 }
    for c in 0..<n {
      var p = c
      for r in c..<n where abs(a[r * n + c]) > abs(a[p * n + c]) { p = r }
      if p != c {
        for j in 0..<n {
          a.swapAt(c * n + j, p * n + j)
          x.swapAt(c * n + j, p * n + j)
        }
      }
      let pivot = a[c * n + c]
      for j in 0..<n {
        a[c * n + j] /= pivot
        x[c * n + j] /= pivot
      }
      for r in 0..<n where r != c {
        let f = a[r * n + c]
        guard f != 0 else { continue }
        for j in 0..<n {
          a[r * n + j] -= f * a[c * n + j]
          x[r * n + j] -= f * x[c * n + j]
        }
      }
    }
    return x
  }

  /// max |a - b| / max |b|.
  static func relativeError(_ a: [Double], _ b: [Double]) -> Double {
    let scale = b.map(abs).max() ?? 1
    return zip(a, b).map { abs($0 - $1) }.max().map { $0 / scale } ?? 0
  }

  @Test(
    "the inverse equals Gauss-Jordan's to 1e-9 relative, for sizes and blocks that do not divide",
    arguments: [
      (1, 64), (2, 1), (3, 2), (5, 4), (7, 3), (13, 5), (33, 8), (65, 64), (130, 64), (131, 17),
      (200, 96),
    ])
  func inverse(size: (Int, Int)) throws {
    let (n, block) = size
    let m = Self.randomSPD(n: n, seed: UInt64(1000 + n))
    var matrix = SymmetricMatrix(n: n)
    // Only the lower triangle goes in: the upper one is scratch.
    for i in 0..<n {
      for j in 0...i { matrix.storage[i * n + j] = m[i * n + j] }
    }
    let okMatrix = matrix.invertPositiveDefinite(blockSize: block)
    #expect(okMatrix)
    matrix.mirrorLower()
    let expected = Self.naiveInverse(m, n: n)
    let error = Self.relativeError(matrix.storage, expected)
    #expect(error < 1e-9, "n \(n), block \(block): relative error \(error)")
    // And it is an inverse: M P = I.
    var worst = 0.0
    for i in 0..<n {
      for j in 0..<n {
        var s = 0.0
        for k in 0..<n { s += m[i * n + k] * matrix.storage[k * n + j] }
        worst = max(worst, abs(s - (i == j ? 1 : 0)))
      }
    }
    #expect(worst < 1e-9, "n \(n): |M P - I| \(worst)")
  }

  @Test("the block size changes no digit that matters, and the same input gives the same bits")
  func blockSizes() {
    let n = 70
    let m = Self.randomSPD(n: n, seed: 5)
    func inverted(_ block: Int) -> [Double] {
      var matrix = SymmetricMatrix(n: n)
      matrix.storage = m
      let okMatrix = matrix.invertPositiveDefinite(blockSize: block)
      #expect(okMatrix)
      matrix.mirrorLower()
      return matrix.storage
    }
    let reference = inverted(64)
    #expect(inverted(64) == reference)
    for block in [1, 4, 9, 70, 128] {
      #expect(Self.relativeError(inverted(block), reference) < 1e-12, "block \(block)")
    }
  }

  @Test("a matrix that is not positive definite is refused")
  func notPositiveDefinite() {
    var indefinite = SymmetricMatrix(n: 2)
    indefinite.storage = [1, 2, 2, 1]
    let okIndefinite = indefinite.invertPositiveDefinite()
    #expect(!okIndefinite)
    var singular = SymmetricMatrix(n: 3)
    singular.storage = [1, 1, 1, 1, 1, 1, 1, 1, 1]
    let okSingular = singular.invertPositiveDefinite(blockSize: 2)
    #expect(!okSingular)
    var empty = SymmetricMatrix(n: 0)
    let okEmpty = empty.invertPositiveDefinite()
    #expect(okEmpty)
  }

  @Test("mirrorLower copies the lower triangle over the upper one")
  func mirror() {
    let n = 37
    var matrix = SymmetricMatrix(n: n)
    for i in 0..<n {
      for j in 0..<n { matrix.storage[i * n + j] = j <= i ? Double(i * 100 + j) : -1 }
    }
    matrix.mirrorLower()
    for i in 0..<n {
      for j in 0..<n {
        #expect(matrix.storage[i * n + j] == Double(max(i, j) * 100 + min(i, j)))
        #expect(matrix[i, j] == matrix[j, i])
      }
    }
  }
}
