import DeckCore
import Testing

@testable import DeckStrategies

/// The fast paths every diner's deck takes through a catalog-wide strategy's scores, against the
/// general code they replace: the gather of the candidates' scores and the check that every
/// score is a number.
@Suite struct ScoreGatherTests {
  @Test func gatherIsTheMapOfTheScores() {
    var random = RandomStream(seed: 31)
    for count in [0, 1, 2, 7, 64, 500] {
      let values = (0..<count).map { _ in random.nextDouble() }
      for _ in 0..<20 {
        let candidates = (0..<count).filter { _ in random.nextInt(below: 3) > 0 }.map(Int32.init)
        #expect(gatherScores(values, at: candidates) == candidates.map { values[Int($0)] })
      }
    }
    // A candidate outside the scores (a catalog the strategy did not learn): nil, never a read
    // past the end, a negative index included.
    #expect(gatherScores([0.5, 0.25], at: [0, 2]) == nil)
    #expect(gatherScores([0.5, 0.25], at: [-1]) == nil)
    #expect(gatherScores([], at: [0]) == nil)
    #expect(gatherScores([], at: []) == [])
  }

  @Test func allFiniteIsEveryValueFinite() {
    var random = RandomStream(seed: 32)
    let odd: [Double] = [.nan, .infinity, -.infinity, -.nan, .signalingNaN]
    let edges: [Double] = [
      0, -0.0, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
      .leastNonzeroMagnitude, .leastNormalMagnitude,
    ]
    for count in [0, 1, 3, 17, 500] {
      for round in 0..<30 {
        var values = (0..<count).map { _ in
          random.nextInt(below: 4) == 0
            ? edges[random.nextInt(below: edges.count)] : random.nextDouble() - 0.5
        }
        if count > 0 && round % 2 == 1 {
          values[random.nextInt(below: count)] = odd[random.nextInt(below: odd.count)]
        }
        #expect(allFinite(values) == values.allSatisfy(\.isFinite), "\(values)")
      }
    }
  }
}
