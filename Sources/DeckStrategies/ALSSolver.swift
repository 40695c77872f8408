import DeckBase
import DeckCore

/// The numbers of the ALS fit: single precision, as implicit's default (half the memory and
/// twice the numbers per vector instruction of double precision; 3 CG steps do not need more).
typealias ALSScalar = Float
/// Four factors, the unit of every vector operation.
typealias ALSGroup = SIMD4<ALSScalar>

/// Dense factor rows for implicit ALS: `rows` vectors of `factors` numbers, each stored as
/// `lanes` SIMD4 groups (the factors padded with zeros to a multiple of 4, so that every vector
/// operation runs over whole groups; the padding stays 0 through every solve).
struct ALSFactors: Sendable, Equatable {
  let rows: Int
  let factors: Int
  let lanes: Int
  var values: [ALSGroup]

  init(rows: Int, factors: Int) {
    self.rows = rows
    self.factors = factors
    lanes = (factors + 3) / 4
    values = [ALSGroup](repeating: .zero, count: rows * lanes)
  }

  /// Rows drawn from `random`: each factor uniform in [0, scale), row after row, factor after
  /// factor (the order is part of the result: a change fails the pinned examples).
  init(rows: Int, factors: Int, random: inout RandomStream, scale: Double) {
    self.init(rows: rows, factors: factors)
    for r in 0..<rows {
      for f in 0..<factors {
        values[r * lanes + f / 4][f % 4] = ALSScalar(random.nextDouble() * scale)
      }
    }
  }

  /// Row `r` as plain numbers (tests, docs).
  func row(_ r: Int) -> [Double] {
    (0..<factors).map { Double(values[r * lanes + $0 / 4][$0 % 4]) }
  }

  /// The dot product of row `r` with row `s` of `other` (the same `lanes`), in a fixed order.
  func dot(_ r: Int, _ other: ALSFactors, _ s: Int) -> ALSScalar {
    values.withUnsafeBufferPointer { a in
      other.values.withUnsafeBufferPointer { b in
        ALSVector.dot(a.baseAddress! + r * lanes, b.baseAddress! + s * lanes, lanes)
      }
    }
  }
}

/// The observed cells of one side of the implicit-feedback matrix, row by row (compressed
/// rows): for each observed (row, column) the confidence minus one, `c - 1`, and the target
/// `c * p` (preference p is 1 or 0). Cells not listed have c = 1 and p = 0.
struct ALSObservations: Sendable, Equatable {
  var start: [Int] = [0]
  var column: [Int32] = []
  var excess: [ALSScalar] = []
  var target: [ALSScalar] = []

  var rows: Int { start.count - 1 }

  mutating func append(column c: Int32, confidence: Double, preference: Double) {
    column.append(c)
    excess.append(ALSScalar(confidence - 1))
    target.append(ALSScalar(confidence * preference))
  }

  mutating func endRow() { start.append(column.count) }

  /// The same cells by column (each column's cells in row order).
  func transposed(columns: Int) -> ALSObservations {
    var counts = [Int](repeating: 0, count: columns + 1)
    for c in column { counts[Int(c) + 1] += 1 }
    for c in 0..<columns { counts[c + 1] += counts[c] }
    var out = ALSObservations()
    out.start = counts
    out.column = [Int32](repeating: 0, count: column.count)
    out.excess = [ALSScalar](repeating: 0, count: column.count)
    out.target = [ALSScalar](repeating: 0, count: column.count)
    var fill = counts
    for r in 0..<rows {
      for k in start[r]..<start[r + 1] {
        let c = Int(column[k])
        out.column[fill[c]] = Int32(r)
        out.excess[fill[c]] = excess[k]
        out.target[fill[c]] = target[k]
        fill[c] += 1
      }
    }
    return out
  }
}

/// The least-squares steps of implicit ALS (Hu, Koren and Volinsky 2008), each row solved by a
/// few conjugate-gradient steps warm-started from its previous value (Takács, Pilászy and Tikk
/// 2011).
///
/// For a row x (a diner, or a dish) with the other side's factors Y fixed, the normal equations
/// are
///
///     (Y'Y + regularization I + sum over observed j of (c_j - 1) y_j y_j') x
///       = sum over observed j of c_j p_j y_j
///
/// Y'Y is computed once per half step, so each row costs O(k^2 + nnz k) per CG step instead of
/// the O(n k^2) of forming its matrix. Every sum runs in a fixed order that does not depend on
/// the number of workers: rows are solved independently, and Y'Y is summed in fixed blocks of
/// rows, the blocks added in order; so the factors are the same bytes for every `jobs`.
enum ALSSolver {
  /// Rows per unit of parallel work (a fixed partition: it must not depend on `jobs`).
  static let block = 256

  /// Stops CG when the squared residual falls below this (as implicit's CPU solver does).
  static let residualFloor: ALSScalar = 1e-20

  /// Y'Y + regularization I, as `lanes * 4` rows of `lanes` groups (row a is column a).
  static func gram(_ y: ALSFactors, regularization: Double, jobs: Int) -> [ALSGroup] {
    let lanes = y.lanes
    let width = lanes * 4
    let blocks = (y.rows + block - 1) / block
    let values = y.values
    let partials = Parallel.map(count: blocks, jobs: jobs) { b -> [ALSGroup] in
      var g = [ALSGroup](repeating: .zero, count: width * lanes)
      values.withUnsafeBufferPointer { yv in
        g.withUnsafeMutableBufferPointer { gv in
          let gp = gv.baseAddress!
          for r in (b * block)..<min(y.rows, (b + 1) * block) {
            let row = yv.baseAddress! + r * lanes
            for a in 0..<y.factors {
              let s = row[a / 4][a % 4]
              if s == 0 { continue }
              ALSVector.axpy(s, row, gp + a * lanes, lanes)
            }
          }
        }
      }
      return g
    }
    var g = [ALSGroup](repeating: .zero, count: width * lanes)
    for p in partials {
      for k in g.indices { g[k] += p[k] }
    }
    for a in 0..<y.factors { g[a * lanes + a / 4][a % 4] += ALSScalar(regularization) }
    return g
  }

  /// One half step: every row of `x` solved against the fixed `y` by `steps` CG steps from its
  /// current value.
  static func solve(
    _ x: inout ALSFactors, fixed y: ALSFactors, observations: ALSObservations,
    regularization: Double, steps: Int, jobs: Int
  ) {
    precondition(x.lanes == y.lanes && observations.rows == x.rows, "mismatched ALS sides")
    let g = gram(y, regularization: regularization, jobs: jobs)
    let lanes = x.lanes
    let blocks = (x.rows + block - 1) / block
    let old = x.values
    let yValues = y.values
    let rows = x.rows
    let solved = Parallel.map(count: blocks, jobs: jobs) { b -> [ALSGroup] in
      let first = b * block
      let end = min(rows, first + block)
      var out = Array(old[(first * lanes)..<(end * lanes)])
      var scratch = ALSScratch(lanes: lanes)
      out.withUnsafeMutableBufferPointer { o in
        for r in first..<end {
          let s = observations.start[r]
          let e = observations.start[r + 1]
          conjugateGradient(
            o.baseAddress! + (r - first) * lanes, gram: g, y: yValues, lanes: lanes,
            columns: observations.column[s..<e], excess: observations.excess[s..<e],
            target: observations.target[s..<e], steps: steps, scratch: &scratch)
        }
      }
      return out
    }
    var k = 0
    for part in solved {
      for v in part {
        x.values[k] = v
        k += 1
      }
    }
  }

  /// One row from zero, with up to `steps` CG steps (stopping early at the residual floor):
  /// the fold-in of a diner the fit did not see.
  static func solveRow(
    gram g: [ALSGroup], y: ALSFactors, columns: ArraySlice<Int32>,
    excess: ArraySlice<ALSScalar>, target: ArraySlice<ALSScalar>, steps: Int
  ) -> [ALSGroup] {
    var x = [ALSGroup](repeating: .zero, count: y.lanes)
    var scratch = ALSScratch(lanes: y.lanes)
    x.withUnsafeMutableBufferPointer { xv in
      conjugateGradient(
        xv.baseAddress!, gram: g, y: y.values, lanes: y.lanes, columns: columns,
        excess: excess, target: target, steps: steps, scratch: &scratch)
    }
    return x
  }

  /// Conjugate gradient on A x = b, A = G + sum (c - 1) y y', b = sum c p y, from x in place.
  static func conjugateGradient(
    _ x: UnsafeMutablePointer<ALSGroup>, gram g: [ALSGroup], y yValues: [ALSGroup],
    lanes: Int, columns: ArraySlice<Int32>, excess: ArraySlice<ALSScalar>,
    target: ArraySlice<ALSScalar>, steps: Int, scratch: inout ALSScratch
  ) {
    g.withUnsafeBufferPointer { gv in
      yValues.withUnsafeBufferPointer { yv in
        scratch.withPointers { r, p, ap in
          let gp = gv.baseAddress!
          let yp = yv.baseAddress!
          // r = b - A x
          ALSVector.multiply(gp, x, into: r, lanes)
          for l in 0..<lanes { r[l] = -r[l] }
          var k = excess.startIndex
          for c in columns {
            let row = yp + Int(c) * lanes
            let d = ALSVector.dot(row, x, lanes)
            ALSVector.axpy(target[k] - excess[k] * d, row, r, lanes)
            k += 1
          }
          for l in 0..<lanes { p[l] = r[l] }
          var rs = ALSVector.dot(r, r, lanes)
          if rs < residualFloor { return }
          for _ in 0..<steps {
            // Ap = A p
            ALSVector.multiply(gp, p, into: ap, lanes)
            var k = excess.startIndex
            for c in columns {
              let row = yp + Int(c) * lanes
              ALSVector.axpy(excess[k] * ALSVector.dot(row, p, lanes), row, ap, lanes)
              k += 1
            }
            let pap = ALSVector.dot(p, ap, lanes)
            guard pap > 0 else { return }
            let a = rs / pap
            ALSVector.axpy(a, p, x, lanes)
            ALSVector.axpy(-a, ap, r, lanes)
            let next = ALSVector.dot(r, r, lanes)
            if next < residualFloor { return }
            let beta = SIMD4(repeating: next / rs)
            for l in 0..<lanes { p[l] = r[l] + beta * p[l] }
            rs = next
          }
        }
      }
    }
  }
}

/// The residual, direction and product vectors of one worker's CG.
struct ALSScratch {
  private var buffer: [ALSGroup]
  private let lanes: Int

  init(lanes: Int) {
    self.lanes = lanes
    buffer = [ALSGroup](repeating: .zero, count: 3 * lanes)
  }

  mutating func withPointers<R>(
    _ body: (
      UnsafeMutablePointer<ALSGroup>, UnsafeMutablePointer<ALSGroup>,
      UnsafeMutablePointer<ALSGroup>
    ) -> R
  ) -> R {
    let lanes = lanes
    return buffer.withUnsafeMutableBufferPointer { b in
      let base = b.baseAddress!
      return body(base, base + lanes, base + 2 * lanes)
    }
  }
}

/// Vector operations over SIMD4 groups, each summing in one fixed order.
enum ALSVector {
  @inline(__always)
  static func dot(
    _ a: UnsafePointer<ALSGroup>, _ b: UnsafePointer<ALSGroup>, _ lanes: Int
  ) -> ALSScalar {
    var s0 = ALSGroup.zero
    var s1 = ALSGroup.zero
    var l = 0
    while l + 1 < lanes {
      s0 += a[l] * b[l]
      s1 += a[l + 1] * b[l + 1]
      l += 2
    }
    if l < lanes { s0 += a[l] * b[l] }
    let s = s0 + s1
    return (s[0] + s[1]) + (s[2] + s[3])
  }

  @inline(__always)
  static func dot(
    _ a: UnsafeMutablePointer<ALSGroup>, _ b: UnsafeMutablePointer<ALSGroup>,
    _ lanes: Int
  ) -> ALSScalar {
    dot(UnsafePointer(a), UnsafePointer(b), lanes)
  }

  @inline(__always)
  static func dot(
    _ a: UnsafePointer<ALSGroup>, _ b: UnsafeMutablePointer<ALSGroup>, _ lanes: Int
  ) -> ALSScalar {
    dot(a, UnsafePointer(b), lanes)
  }

  /// y += s x
  @inline(__always)
  static func axpy(
    _ s: ALSScalar, _ x: UnsafePointer<ALSGroup>, _ y: UnsafeMutablePointer<ALSGroup>,
    _ lanes: Int
  ) {
    let v = SIMD4(repeating: s)
    for l in 0..<lanes { y[l] += v * x[l] }
  }

  @inline(__always)
  static func axpy(
    _ s: ALSScalar, _ x: UnsafeMutablePointer<ALSGroup>,
    _ y: UnsafeMutablePointer<ALSGroup>, _ lanes: Int
  ) {
    axpy(s, UnsafePointer(x), y, lanes)
  }

  /// out = G v, G symmetric (`lanes * 4` rows of `lanes` groups), as the sum of G's rows
  /// weighted by v's entries, in row order; the output is built eight groups at a time in
  /// registers (then four, then one), so that each row is read once per block and nothing is
  /// stored until the block is done.
  @inline(__always)
  static func multiply(
    _ g: UnsafePointer<ALSGroup>, _ v: UnsafeMutablePointer<ALSGroup>,
    into out: UnsafeMutablePointer<ALSGroup>, _ lanes: Int
  ) {
    var m = 0
    while m + 8 <= lanes {
      var a0 = ALSGroup.zero
      var a1 = ALSGroup.zero
      var a2 = ALSGroup.zero
      var a3 = ALSGroup.zero
      var a4 = ALSGroup.zero
      var a5 = ALSGroup.zero
      var a6 = ALSGroup.zero
      var a7 = ALSGroup.zero
      for l in 0..<lanes {
        let group = v[l]
        for q in 0..<4 {
          let s = ALSGroup(repeating: group[q])
          let row = g + (l * 4 + q) * lanes + m
          a0 += s * row[0]
          a1 += s * row[1]
          a2 += s * row[2]
          a3 += s * row[3]
          a4 += s * row[4]
          a5 += s * row[5]
          a6 += s * row[6]
          a7 += s * row[7]
        }
      }
      out[m] = a0
      out[m + 1] = a1
      out[m + 2] = a2
      out[m + 3] = a3
      out[m + 4] = a4
      out[m + 5] = a5
      out[m + 6] = a6
      out[m + 7] = a7
      m += 8
    }
    while m + 4 <= lanes {
      var a0 = ALSGroup.zero
      var a1 = ALSGroup.zero
      var a2 = ALSGroup.zero
      var a3 = ALSGroup.zero
      for l in 0..<lanes {
        let group = v[l]
        for q in 0..<4 {
          let s = ALSGroup(repeating: group[q])
          let row = g + (l * 4 + q) * lanes + m
          a0 += s * row[0]
          a1 += s * row[1]
          a2 += s * row[2]
          a3 += s * row[3]
        }
      }
      out[m] = a0
      out[m + 1] = a1
      out[m + 2] = a2
      out[m + 3] = a3
      m += 4
    }
    while m < lanes {
      var a0 = ALSGroup.zero
      for l in 0..<lanes {
        let group = v[l]
        for q in 0..<4 { a0 += ALSGroup(repeating: group[q]) * g[(l * 4 + q) * lanes + m] }
      }
      out[m] = a0
      m += 1
    }
  }
}
