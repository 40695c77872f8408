/// Builds decks under `DeckRules`: first the candidates a diner may see, then, given a strategy's
/// scores for them, the ordered cards.
///
/// Ordering key: not-recently-shown before recently-shown, then score (descending), then catalog
/// order. Selection honours category caps; arrangement then avoids two adjacent cards of one
/// category whenever some order of the selected cards allows it, staying as close to the key
/// order as it can.
public struct DeckBuilder: Sendable {
  public let catalog: Catalog
  public let rules: DeckRules

  private let excludedMask: [Bool]
  private let pinned: [Int32]
  private let itemAllergens: [[Int32]]
  private let itemDiets: [[Int32]]
  private let allergenIndex: [String: Int32]
  private let dietIndex: [String: Int32]

  public init(catalog: Catalog, rules: DeckRules) throws(DeckCoreError) {
    try rules.validate()
    self.catalog = catalog
    self.rules = rules
    var excluded = Array(repeating: false, count: catalog.count)
    for id in rules.excluded {
      guard let i = catalog.index(of: id) else {
        throw .invalidRules("excluded item '\(id)' is not in the catalog")
      }
      excluded[Int(i)] = true
    }
    var pinned: [Int32] = []
    for id in rules.pinned {
      guard let i = catalog.index(of: id) else {
        throw .invalidRules("pinned item '\(id)' is not in the catalog")
      }
      if !pinned.contains(i) { pinned.append(i) }
    }
    self.excludedMask = excluded
    self.pinned = pinned
    var allergenIndex: [String: Int32] = [:]
    var dietIndex: [String: Int32] = [:]
    func intern(_ values: [String], _ table: inout [String: Int32]) -> [Int32] {
      values.map { v in
        if let i = table[v] { return i }
        let i = Int32(table.count)
        table[v] = i
        return i
      }
    }
    self.itemAllergens = catalog.items.map { intern($0.allergens, &allergenIndex) }
    self.itemDiets = catalog.items.map { intern($0.diets, &dietIndex) }
    self.allergenIndex = allergenIndex
    self.dietIndex = dietIndex
  }

  /// Items available on a date (availability and exclusion only); compute once per date and pass
  /// to `candidates` to avoid re-checking every item for every diner.
  public func dayMask(for date: DeckDate) -> [Bool] {
    catalog.items.indices.map { !excludedMask[$0] && catalog.items[$0].availability.allows(date) }
  }

  /// The items `user` may see on `date`, with hold-back counts.
  public func candidates(
    for user: UserProfile, history: UserHistory?, date: DeckDate, dayMask: [Bool]? = nil
  ) -> CandidateSet {
    let n = catalog.count
    let mask = dayMask ?? self.dayMask(for: date)
    // 0 = candidate, 1 = recently shown candidate, 2... = held back (reason + 2)
    var state = [UInt8](repeating: 0, count: n)
    var heldBack = [Int](repeating: 0, count: HoldBackReason.allCases.count)

    func hold(_ i: Int, _ reason: HoldBackReason) {
      if state[i] < 2 {
        state[i] = UInt8(reason.rawValue + 2)
        heldBack[reason.rawValue] += 1
      }
    }
    for i in 0..<n where !mask[i] {
      hold(i, excludedMask[i] ? .excluded : .unavailable)
    }
    if !user.diets.isEmpty {
      let wanted = user.diets.map { dietIndex[$0] ?? -1 }
      for i in 0..<n where state[i] < 2 {
        let has = itemDiets[i]
        if !wanted.allSatisfy({ $0 >= 0 && has.contains($0) }) { hold(i, .diet) }
      }
    }
    if !user.allergens.isEmpty {
      let avoid = user.allergens.compactMap { allergenIndex[$0] }
      if !avoid.isEmpty {
        for i in 0..<n where state[i] < 2 {
          if itemAllergens[i].contains(where: { avoid.contains($0) }) { hold(i, .allergen) }
        }
      }
    }
    if !user.dislikedCategories.isEmpty {
      for i in 0..<n where state[i] < 2 {
        if user.dislikedCategories.contains(catalog.categories[Int(catalog.itemCategory[i])]) {
          hold(i, .dislikedCategory)
        }
      }
    }
    // Pins bypass freshness: decide them before it applies.
    var eligiblePins: [Int32] = []
    for p in pinned where state[Int(p)] < 2 { eligiblePins.append(p) }
    if let history {
      let today = date.daysSinceEpoch
      for r in history.records {
        let i = Int(r.item)
        guard state[i] < 2, !eligiblePins.contains(r.item) else { continue }
        if rules.repeatPickDays > 0, r.lastRight != History.never, r.lastRight < today,
          today - r.lastRight <= rules.repeatPickDays
        {
          hold(i, .recentlyPicked)
        } else if rules.cooldownDays > 0, r.lastLeft != History.never, r.lastLeft < today,
          today - r.lastLeft <= rules.cooldownDays
        {
          hold(i, .cooldown)
        } else if rules.reshowDays > 0, r.lastShown != History.never, r.lastShown < today,
          today - r.lastShown <= rules.reshowDays
        {
          state[i] = 1
        }
      }
    }
    var items: [Int32] = []
    var recent: [Bool] = []
    items.reserveCapacity(n)
    recent.reserveCapacity(n)
    for i in 0..<n where state[i] < 2 {
      items.append(Int32(i))
      recent.append(state[i] == 1)
    }
    return CandidateSet(items: items, recentlyShown: recent, pinned: eligiblePins, heldBack: heldBack)
  }

  /// The pinned ids that `candidates` dropped for this diner.
  public func skippedPins(in set: CandidateSet) -> [String] {
    pinned.filter { !set.pinned.contains($0) }.map { catalog[$0].id }
  }

  /// Orders the candidates into a deck. `scores[k]` is the strategy's score of
  /// `candidates.items[k]`; NaN counts as the lowest score. `propensities`, when given, are copied
  /// onto the cards (strategies that rank stochastically know them).
  public func assemble(
    user: String, date: DeckDate, candidates: CandidateSet, scores: [Double],
    propensities: [Double]? = nil
  ) -> Deck {
    precondition(scores.count == candidates.items.count, "one score per candidate")
    let size = rules.size
    let cap = rules.maxPerCategory ?? Int.max
    var perCategory = [Int](repeating: 0, count: catalog.categories.count)
    var cards: [Card] = []
    cards.reserveCapacity(size)

    // Pins first, in pin order.
    var pinnedSlots = Set<Int32>()
    if !candidates.pinned.isEmpty {
      var position: [Int32: Int] = [:]
      for (k, item) in candidates.items.enumerated() { position[item] = k }
      for p in candidates.pinned where cards.count < size {
        let k = position[p]!
        cards.append(Card(item: p, score: scores[k], pinned: true, propensity: propensities?[k]))
        perCategory[Int(catalog.itemCategory[Int(p)])] += 1
        pinnedSlots.insert(p)
      }
    }

    // Select the rest in key order under the category cap.
    var heap = KeyHeap(candidates: candidates, scores: scores, skip: pinnedSlots)
    var selected: [Int] = []  // positions in candidates.items, in key order
    var capped = 0
    while cards.count + selected.count < size, let k = heap.pop() {
      let c = Int(catalog.itemCategory[Int(candidates.items[k])])
      if perCategory[c] >= cap {
        capped += 1
        continue
      }
      perCategory[c] += 1
      selected.append(k)
    }
    if cards.count + selected.count < size {
      while let k = heap.pop() {
        let c = Int(catalog.itemCategory[Int(candidates.items[k])])
        if perCategory[c] >= cap { capped += 1 }
      }
    }

    let ordered =
      rules.avoidAdjacentCategory
      ? arrange(selected, after: cards.last.map { Int(catalog.itemCategory[Int($0.item)]) }, candidates)
      : selected
    for k in ordered {
      cards.append(Card(item: candidates.items[k], score: scores[k], propensity: propensities?[k]))
    }

    var shortfall: Shortfall?
    if cards.count < size {
      shortfall = Shortfall(
        size: size, cards: cards.count, catalogCount: catalog.count,
        heldBack: candidates.heldBack, cappedByCategory: capped)
    }
    return Deck(
      user: user, date: date, cards: cards, shortfall: shortfall,
      skippedPins: skippedPins(in: candidates))
  }

  /// Reorders `selected` (in key order) so that no two neighbours share a category whenever that
  /// is possible, choosing at each step the earliest item that keeps the rest arrangeable.
  private func arrange(_ selected: [Int], after previous: Int?, _ candidates: CandidateSet) -> [Int] {
    guard selected.count > 1 || previous != nil else { return selected }
    var remaining = selected
    var counts: [Int: Int] = [:]
    func category(_ k: Int) -> Int { Int(catalog.itemCategory[Int(candidates.items[k])]) }
    for k in remaining { counts[category(k), default: 0] += 1 }
    var prev = previous
    var out: [Int] = []
    out.reserveCapacity(selected.count)
    while !remaining.isEmpty {
      var choice: Int?
      var fallback: Int?
      for (j, k) in remaining.enumerated() {
        let c = category(k)
        if c == prev { continue }
        if fallback == nil { fallback = j }
        counts[c]! -= 1
        let ok = arrangeable(counts, remaining: remaining.count - 1, first: c)
        counts[c]! += 1
        if ok {
          choice = j
          break
        }
      }
      let j = choice ?? fallback ?? 0
      let k = remaining.remove(at: j)
      counts[category(k)]! -= 1
      out.append(k)
      prev = category(k)
    }
    return out
  }

  /// Whether `r` items with these category counts can follow an item of category `first` with no
  /// two neighbours alike.
  private func arrangeable(_ counts: [Int: Int], remaining r: Int, first: Int) -> Bool {
    for (c, n) in counts where n > 0 {
      if c == first {
        if n > r / 2 { return false }
      } else if n > (r + 1) / 2 {
        return false
      }
    }
    return true
  }
}

/// A binary max-heap over candidate positions by (not recently shown, score, catalog order).
private struct KeyHeap {
  private var heap: [Int]
  private let recent: [Bool]
  private let scores: [Double]
  private let items: [Int32]

  init(candidates: CandidateSet, scores: [Double], skip: Set<Int32>) {
    self.recent = candidates.recentlyShown
    self.scores = scores
    self.items = candidates.items
    var h: [Int] = []
    h.reserveCapacity(candidates.items.count)
    for k in candidates.items.indices where skip.isEmpty || !skip.contains(candidates.items[k]) {
      h.append(k)
    }
    heap = h
    if heap.count > 1 {
      var i = heap.count / 2 - 1
      while i >= 0 {
        siftDown(i)
        i -= 1
      }
    }
  }

  /// Whether a comes before b.
  @inline(__always)
  private func before(_ a: Int, _ b: Int) -> Bool {
    if recent[a] != recent[b] { return !recent[a] }
    let sa = scores[a].isNaN ? -Double.infinity : scores[a]
    let sb = scores[b].isNaN ? -Double.infinity : scores[b]
    if sa != sb { return sa > sb }
    return items[a] < items[b]
  }

  private mutating func siftDown(_ start: Int) {
    var i = start
    let n = heap.count
    while true {
      let l = 2 * i + 1
      if l >= n { return }
      var best = l
      let r = l + 1
      if r < n && before(heap[r], heap[l]) { best = r }
      if before(heap[best], heap[i]) {
        heap.swapAt(best, i)
        i = best
      } else {
        return
      }
    }
  }

  mutating func pop() -> Int? {
    guard let top = heap.first else { return nil }
    let last = heap.removeLast()
    if !heap.isEmpty {
      heap[0] = last
      siftDown(0)
    }
    return top
  }
}
