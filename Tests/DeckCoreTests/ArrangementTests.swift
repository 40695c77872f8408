import Testing

@testable import DeckCore

/// `DeckBuilder.arrangement(of:after:)` (work lists on the stack, categories by group) against
/// the plain statement of the rule it implements: at each step the earliest card, in key order,
/// whose category differs from the previous card's and after which the rest can still be laid
/// out with no two neighbours alike; failing that, the earliest whose category differs; failing
/// that, the first.
@Suite struct ArrangementTests {
  static func reference(_ categories: [Int], after previous: Int?) -> [Int] {
    var left = Array(categories.indices)
    var prev = previous
    var out: [Int] = []
    func arrangeable(_ cards: [Int], after first: Int) -> Bool {
      let r = cards.count
      for c in Set(cards.map { categories[$0] }) {
        let n = cards.filter { categories[$0] == c }.count
        if n > (c == first ? r / 2 : (r + 1) / 2) { return false }
      }
      return true
    }
    while !left.isEmpty {
      let differing = left.indices.filter { categories[left[$0]] != prev }
      let choice = differing.first { t in
        var rest = left
        rest.remove(at: t)
        return arrangeable(rest, after: categories[left[t]])
      }
      let j = left.remove(at: choice ?? differing.first ?? 0)
      out.append(j)
      prev = categories[j]
    }
    return out
  }

  @Test func isTheRuleItImplements() {
    var random = RandomStream(seed: 33)
    for size in [0, 1, 2, 3, 5, 10, 16] {
      for kinds in [1, 2, 3, 6] {
        for _ in 0..<60 {
          let categories = (0..<size).map { _ in random.nextInt(below: kinds) }
          for previous in [nil, 0, 1, kinds + 5] as [Int?] {
            let got = categories.withUnsafeBufferPointer {
              DeckBuilder.arrangement(of: $0, after: previous)
            }
            #expect(
              got == Self.reference(categories, after: previous),
              "\(categories) after \(String(describing: previous))")
          }
        }
      }
    }
  }
}
