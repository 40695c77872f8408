import Testing

@testable import DeckCore

/// The deck's key order from `KeyHeap` (a selected lead, heaps made only past it) against a
/// plain sort of the same key, popped to the end: every size of candidate set around the lead,
/// ties, NaN, -0.0 and infinities, some candidates recently shown, every `wanted`.
@Suite struct KeyHeapTests {
  /// Not recently shown first, then score descending with NaN last and -0.0 equal to 0.0, then
  /// catalog order.
  static func sorted(_ c: CandidateSet, _ scores: [Double]) -> [Int] {
    func key(_ s: Double) -> Double { s.isNaN ? -.infinity : s }
    return c.items.indices.sorted { a, b in
      if c.recentlyShown[a] != c.recentlyShown[b] { return !c.recentlyShown[a] }
      let (x, y) = (key(scores[a]), key(scores[b]))
      if x != y { return x > y }
      if scores[a].isNaN != scores[b].isNaN { return !scores[a].isNaN }
      return c.items[a] < c.items[b]
    }
  }

  @Test func popsInTheKeyOrderOfASort() {
    var random = RandomStream(seed: 30)
    let specials: [Double] = [.nan, -0.0, 0.0, .infinity, -.infinity, 0.5]
    for count in [0, 1, 2, 7, 8, 9, 27, 28, 29, 60, 500] {
      for wanted in [0, 1, 10, 40] {
        for round in 0..<8 {
          // Items: a sorted sample of catalog indices, as candidates are.
          var items: [Int32] = []
          var next: Int32 = 0
          while items.count < count {
            next += Int32(1 + random.nextInt(below: 3))
            items.append(next)
          }
          let recentShare = [0, 0, 3, 10][round % 4]
          let recent = items.map { _ in random.nextInt(below: 10) < recentShare }
          let scores: [Double] = items.map { _ in
            switch round % 3 {
            case 0: return Double(random.nextInt(below: 3))  // ties: catalog order decides
            case 1: return specials[random.nextInt(below: specials.count)]
            default: return random.nextDouble()
            }
          }
          let set = CandidateSet(
            items: items, recentlyShown: recent, pinned: [], heldBack: [])
          var heap = KeyHeap(candidates: set, scores: scores, wanted: wanted)
          var popped: [Int] = []
          while let k = heap.pop() { popped.append(k) }
          #expect(
            popped == Self.sorted(set, scores),
            "\(count) candidates, wanted \(wanted), round \(round)")
          #expect(heap.pop() == nil)
        }
      }
    }
  }
}
