/// Builds decks under `DeckRules`: first the candidates a diner may see, then, given a strategy's
/// scores for them, the ordered cards.
///
/// Ordering key: not-recently-shown before recently-shown, then score (descending, NaN after every
/// number), then catalog order. Pinned items come first, in pin order. The other cards are
/// selected in key order under the category cap; with `avoidAdjacentCategory`, a card whose
/// category already fills half of the remaining slots is passed over for the next card of another
/// category (so that some order of the deck has no two neighbours alike), and is only used when
/// nothing else can fill the deck. Arrangement then avoids two adjacent cards of one category
/// whenever some order of the selected cards allows it, staying as close to the key order as it
/// can; when no order avoids it, it keeps as few neighbours alike as its greedy pass finds.
/// The restaurant's rules (`DeckRules.restaurantRules`) act in the order `RestaurantRule` gives.
public struct DeckBuilder: Sendable {
  public let catalog: Catalog
  /// Settable inside DeckCore only: `explain` asks where a deck's cards would go without one
  /// of the rules (the cap, the spacing), on a copy.
  public internal(set) var rules: DeckRules

  private let excludedMask: [Bool]
  private let pinned: [Int32]
  private let itemAllergens: [[Int32]]
  private let itemDiets: [[Int32]]
  private let allergenIndex: [String: Int32]
  private let dietIndex: [String: Int32]
  /// Nil without restaurant rules: the decks are then built as before they existed.
  private let restaurant: CompiledRestaurantRules?

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
    self.restaurant = try CompiledRestaurantRules.compile(
      rules.restaurantRules, catalog: catalog, pinnedFirst: pinned)
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

  /// What `date` makes of the catalog for every diner (see `DeckDay`): compute once per date
  /// and pass to `candidates(for:history:day:)`.
  public func day(_ date: DeckDate) -> DeckDay {
    let mask = dayMask(for: date)
    // Without restaurant rules, the candidates of a diner nothing else holds back depend on
    // the date alone.
    let unconstrained =
      restaurant == nil ? classify(UserProfile(id: ""), nil, date, mask).set : nil
    return DeckDay(date: date, mask: mask, unconstrained: unconstrained)
  }

  /// The items `user` may see on the day's date: `candidates(for:history:date:dayMask:)`. A
  /// diner with no diet, allergen, disliked category or swipe gets the day's one candidate set
  /// (no restaurant rule being in force), the same arrays for each of them.
  public func candidates(for user: UserProfile, history: UserHistory?, day: DeckDay)
    -> CandidateSet
  {
    if let shared = day.unconstrained, user.diets.isEmpty, user.allergens.isEmpty,
      user.dislikedCategories.isEmpty, history?.records.isEmpty ?? true
    {
      return shared
    }
    return classify(user, history, day.date, day.mask).set
  }

  /// The items `user` may see on `date`, with hold-back counts.
  public func candidates(
    for user: UserProfile, history: UserHistory?, date: DeckDate, dayMask: [Bool]? = nil
  ) -> CandidateSet {
    classify(user, history, date, dayMask).set
  }

  /// `candidates`, and per catalog item what it is to the diner: 0 a candidate, 1 a recently
  /// shown candidate, `HoldBackReason.rawValue + 2` held back, 255 hidden by a restaurant rule
  /// (`explain` names the reason of each dish held back).
  func classify(
    _ user: UserProfile, _ history: UserHistory?, _ date: DeckDate, _ dayMask: [Bool]?
  ) -> (set: CandidateSet, state: [UInt8]) {
    let n = catalog.count
    let mask = dayMask ?? self.dayMask(for: date)
    precondition(mask.count == n, "dayMask must have one entry per catalog item")
    // 0 = candidate, 1 = recently shown candidate, 2... = held back (reason + 2), 255 = hidden
    // by a restaurant rule
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
      // Categories by their bytes, as the catalog interns them (`IDKey`).
      var disliked = [Bool](repeating: false, count: catalog.categories.count)
      for (c, category) in catalog.categories.enumerated()
      where user.dislikedCategories.contains(where: { IDKey.same($0, category) }) {
        disliked[c] = true
      }
      for i in 0..<n where state[i] < 2 && disliked[Int(catalog.itemCategory[i])] {
        hold(i, .dislikedCategory)
      }
    }
    // Pins bypass freshness: decide them before it applies (the restaurant's pins at positions
    // in force too).
    var eligiblePins: [Int32] = []
    for p in pinned where state[Int(p)] < 2 { eligiblePins.append(p) }
    let inForce = restaurant?.inForce(for: user.id, on: date)
    var exempt = eligiblePins
    for rule in inForce?.pins ?? [] where state[Int(rule.items[0])] < 2 {
      exempt.append(rule.items[0])
    }
    if let history {
      // Day differences in 64 bits: any two Int32 days subtract without overflow.
      let today = Int(date.daysSinceEpoch)
      for r in history.records {
        let i = Int(r.item)
        guard state[i] < 2, !exempt.contains(r.item) else { continue }
        if rules.repeatPickDays > 0, let last = r.lastRightDay, Int(last) < today,
          today - Int(last) <= rules.repeatPickDays
        {
          hold(i, .recentlyPicked)
        } else if rules.cooldownDays > 0, let last = r.lastLeftDay, Int(last) < today,
          today - Int(last) <= rules.cooldownDays
        {
          hold(i, .cooldown)
        } else if rules.reshowDays > 0, let last = r.lastShownDay, Int(last) < today,
          today - Int(last) <= rules.reshowDays
        {
          state[i] = 1
        }
      }
    }
    // The restaurant's hide rules last: a dish another reason held back is not theirs.
    let hidden = inForce?.hide(&state) ?? []
    if !hidden.isEmpty { eligiblePins.removeAll { state[Int($0)] >= 2 } }
    // Every diner's deck pays for these two lists: filled in one pass without branches (each
    // item is written, and the count moves on past the candidates only).
    var items: [Int32] = []
    var recent: [Bool] = []
    state.withUnsafeBufferPointer { st in
      var count = 0
      items = [Int32](unsafeUninitializedCapacity: n) { itemsOut, itemsDone in
        recent = [Bool](unsafeUninitializedCapacity: n) { recentOut, recentDone in
          for i in 0..<n {
            itemsOut[count] = Int32(truncatingIfNeeded: i)
            recentOut[count] = st[i] == 1
            count += st[i] < 2 ? 1 : 0
          }
          recentDone = count
        }
        itemsDone = count
      }
    }
    var set = CandidateSet(
      items: items, recentlyShown: recent, pinned: eligiblePins, heldBack: heldBack)
    if let inForce {
      set.restaurant = inForce.effects(items: items, pinnedFirst: eligiblePins, hidden: hidden)
    }
    return (set, state)
  }

  /// The pinned ids that `candidates` dropped for this diner.
  public func skippedPins(in set: CandidateSet) -> [String] {
    pinned.filter { !set.pinned.contains($0) }.map { catalog[$0].id }
  }

  /// Orders the candidates into a deck. `scores[k]` is the strategy's score of
  /// `candidates.items[k]`; NaN counts as the lowest score. `propensities` and
  /// `prefixPropensities`, when given, are copied onto the cards (strategies that rank
  /// stochastically know them), one per candidate, as they are: the builder does not check that
  /// a prefix propensity fits the deck's order (the strategy gives them only when the deck keeps
  /// its order). When a restaurant boost or bury changed a score, the cards carry the changed
  /// scores and no propensities (the strategy's do not describe an order it did not draw).
  public func assemble(
    user: String, date: DeckDate, candidates: CandidateSet, scores: [Double],
    propensities: [Double]? = nil, prefixPropensities: [Double]? = nil
  ) -> Deck {
    precondition(
      propensities == nil || propensities!.count == candidates.items.count,
      "one propensity per candidate")
    precondition(
      prefixPropensities == nil || prefixPropensities!.count == candidates.items.count,
      "one prefix propensity per candidate")
    var scores = scores
    var propensities = propensities
    var prefixPropensities = prefixPropensities
    var applied = candidates.restaurant?.hidden ?? []
    if let effects = candidates.restaurant, !effects.scoreChanges.isEmpty {
      let changed = effects.adjust(scores, candidates.items)
      if !changed.applied.isEmpty {
        (scores, propensities, prefixPropensities) = (changed.scores, nil, nil)
        applied += changed.applied
      }
    }
    let slots = slotOrder(candidates: candidates, scores: scores)
    var placedAt = [Bool](repeating: false, count: slots.placed.isEmpty ? 0 : slots.order.count)
    for (j, rule) in slots.placed {
      placedAt[j] = true
      let item = candidates.items[slots.order[j]]
      applied.append(RuleApplication(rule: rule, item: item, effect: .pinned(at: j + 1)))
    }
    let cards = slots.order.enumerated().map { j, k in
      Card(
        item: candidates.items[k], score: scores[k],
        pinned: j < slots.pins || (!placedAt.isEmpty && placedAt[j]),
        propensity: propensities?[k], prefixPropensity: prefixPropensities?[k])
    }
    var shortfall: Shortfall?
    if cards.count < rules.size {
      shortfall = Shortfall(
        size: rules.size, cards: cards.count, catalogCount: catalog.count,
        heldBack: candidates.heldBack, cappedByCategory: slots.capped,
        hiddenByRule: candidates.restaurant?.hidden.count ?? 0)
    }
    return Deck(
      user: user, date: date, cards: cards, shortfall: shortfall,
      skippedPins: skippedPins(in: candidates), ruleApplications: applied)
  }

  /// Where `assemble` puts the candidates: their positions in `candidates.items`, in deck
  /// order (a stochastic strategy asks this for many draws of its ranking, to know the
  /// probability of each card at the slot it ends up in). The restaurant's boosts and burials
  /// change `scores` as in `assemble`.
  public func deckOrder(candidates: CandidateSet, scores: [Double]) -> [Int] {
    guard let effects = candidates.restaurant, !effects.scoreChanges.isEmpty else {
      return slotOrder(candidates: candidates, scores: scores).order
    }
    return slotOrder(
      candidates: candidates, scores: effects.adjust(scores, candidates.items).scores
    )
    .order
  }

  /// Where `assemble` puts the candidates for scores that rank them in the order `next` yields
  /// them, without the scores: `next` gives candidate positions (in `candidates.items`) in key
  /// order, as `assemble` would take them for those scores (every candidate not recently shown
  /// before every recently shown one, each at most once; a pinned candidate may come or not, as
  /// the pins are placed first whatever it yields), and nil when it has no more. It is called
  /// only until the deck is full, so a stochastic strategy can draw a ranking no further than
  /// the deck needs. Given every candidate in the key order of some scores, the order is
  /// `deckOrder(candidates:scores:)`'s for them when no restaurant boost or bury is in force
  /// (the key order is then that of the changed scores: this does not change it).
  public func deckOrder(candidates: CandidateSet, keyOrder next: () -> Int?) -> [Int] {
    slotOrder(candidates: candidates, keyOrder: next).order
  }

  /// The rules of the deck of `candidates`, to ask where they would put the candidates for
  /// other scores; nil when the deck is always the candidates' first `size` in score order.
  public func slots(_ candidates: CandidateSet) -> DeckSlots? {
    keepsScoreOrder(candidates) ? nil : DeckSlots(builder: self, candidates: candidates)
  }

  /// Whether the deck of `candidates` is always their first `size` in score order, whatever the
  /// scores: no pins, none of them shown recently, no category cap that could bite, no
  /// spreading of categories and no restaurant boost, bury or pin in force. (Ties in score
  /// aside, which go by catalog order.)
  public func keepsScoreOrder(_ candidates: CandidateSet) -> Bool {
    // The rules first: they settle it without a look at the candidates under the defaults.
    !rules.avoidAdjacentCategory && (rules.maxPerCategory ?? Int.max) >= rules.size
      && candidates.pinned.isEmpty && !candidates.recentlyShown.contains(true)
      && (candidates.restaurant.map { $0.scoreChanges.isEmpty && $0.placements.isEmpty } ?? true)
  }

  /// The deck's candidate positions in order, how many of them (first) are pins, how many
  /// candidates the category cap passed over, and where the restaurant's pins went (deck index,
  /// rule). `scores` are the key scores (the restaurant's changes made).
  private func slotOrder(candidates: CandidateSet, scores: [Double]) -> SlotOrder {
    precondition(scores.count == candidates.items.count, "one score per candidate")
    var heap = KeyHeap(candidates: candidates, scores: scores, wanted: rules.size)
    return slotOrder(candidates: candidates) { heap.pop() }
  }

  /// As `slotOrder(candidates:scores:)`, with the candidates in key order from `next` (see
  /// `deckOrder(candidates:keyOrder:)`): it is called only until the deck is full.
  private func slotOrder(candidates: CandidateSet, keyOrder next: () -> Int?) -> SlotOrder {
    let size = rules.size
    let cap = rules.maxPerCategory ?? Int.max
    var perCategory = [Int](repeating: 0, count: catalog.categories.count)
    var order: [Int] = []
    order.reserveCapacity(min(size, candidates.items.count))

    // Pins first, in pin order.
    var pinnedSlots = Set<Int32>()
    if !candidates.pinned.isEmpty {
      var position: [Int32: Int] = [:]
      for (k, item) in candidates.items.enumerated() { position[item] = k }
      for p in candidates.pinned where order.count < size {
        order.append(position[p]!)
        perCategory[Int(catalog.itemCategory[Int(p)])] += 1
        pinnedSlots.insert(p)
      }
    }
    let pins = order.count
    // Then the restaurant's pins at positions, as far as the deck has room.
    var placements: [RuleEffects.Placement] = []
    for p in candidates.restaurant?.placements ?? [] where pins + placements.count < size {
      let item = candidates.items[p.k]
      perCategory[Int(catalog.itemCategory[Int(item)])] += 1
      pinnedSlots.insert(item)
      placements.append(p)
    }

    // Select the rest in key order under the category cap. To keep the deck arrangeable with no
    // two neighbours alike, a category may fill at most half of the `slots` left after the pins
    // (rounded up; rounded down for the last pin's category, since the first card must differ
    // from it). Cards over that limit are deferred and used only when nothing else is left.
    // Each kept card remembers its place in key order (`taken`), to merge the deferred back.
    let slots = size - pins - placements.count
    let lastPinned = order.last.map { Int(catalog.itemCategory[Int(candidates.items[$0])]) }
    let spread = rules.avoidAdjacentCategory
    var perCategoryAfterPins = [Int](repeating: 0, count: catalog.categories.count)
    var selected: [(k: Int, taken: Int)] = []  // positions in candidates.items, in key order
    var deferred: [(k: Int, taken: Int)] = []  // likewise
    var capped = 0
    var taken = 0
    while selected.count < slots, let k = next() {
      if !pinnedSlots.isEmpty && pinnedSlots.contains(candidates.items[k]) { continue }
      taken += 1
      let c = Int(catalog.itemCategory[Int(candidates.items[k])])
      if perCategory[c] >= cap {
        capped += 1
        continue
      }
      if spread && perCategoryAfterPins[c] >= (c == lastPinned ? slots / 2 : (slots + 1) / 2) {
        deferred.append((k, taken))
        continue
      }
      perCategory[c] += 1
      perCategoryAfterPins[c] += 1
      selected.append((k, taken))
    }
    if selected.count < slots && !deferred.isEmpty {
      // Every other candidate is in: the deferred cards fill the deck (some neighbours will be
      // alike whichever cards are chosen). Merge them back in key order.
      var filling: [(k: Int, taken: Int)] = []
      for d in deferred where selected.count + filling.count < slots {
        let c = Int(catalog.itemCategory[Int(candidates.items[d.k])])
        if perCategory[c] >= cap {
          capped += 1
          continue
        }
        perCategory[c] += 1
        filling.append(d)
      }
      // Both lists are in key order: merge them.
      var merged: [(k: Int, taken: Int)] = []
      merged.reserveCapacity(selected.count + filling.count)
      var a = 0
      var b = 0
      while a < selected.count || b < filling.count {
        if b == filling.count || (a < selected.count && selected[a].taken < filling[b].taken) {
          merged.append(selected[a])
          a += 1
        } else {
          merged.append(filling[b])
          b += 1
        }
      }
      selected = merged
    }
    let keys = selected.map(\.k)
    order += spread ? arrange(keys, after: lastPinned, candidates) : keys
    guard !placements.isEmpty else { return SlotOrder(order: order, pins: pins, capped: capped) }
    return DeckBuilder.place(placements, into: order, capped: capped, pins: pins)
  }

  /// The deck's candidate positions in order (see `slotOrder(candidates:scores:)`).
  struct SlotOrder {
    var order: [Int]
    var pins: Int
    var capped: Int
    var placed: [(j: Int, rule: Int)] = []
  }

  /// Reorders `selected` (in key order) so that no two neighbours share a category whenever that
  /// is possible (`arrangement(of:after:)`).
  private func arrange(_ selected: [Int], after previous: Int?, _ candidates: CandidateSet) -> [Int]
  {
    guard selected.count > 1 || previous != nil else { return selected }
    return withUnsafeTemporaryAllocation(of: Int.self, capacity: selected.count) { categories in
      for (j, k) in selected.enumerated() {
        categories[j] = Int(catalog.itemCategory[Int(candidates.items[k])])
      }
      return DeckBuilder.arrangement(of: UnsafeBufferPointer(categories), after: previous).map {
        selected[$0]
      }
    }
  }

  /// The order of cards of these categories (given in key order) with no two neighbours alike
  /// whenever some order allows it, the first differing from `previous`: at each step the
  /// earliest card that keeps the rest arrangeable; when no order avoids it, the earliest card
  /// whose category differs from the previous one. Positions in `categories`.
  static func arrangement(of categories: UnsafeBufferPointer<Int>, after previous: Int?) -> [Int] {
    let m = categories.count
    var out: [Int] = []
    out.reserveCapacity(m)
    // Decks are small: the work lists live on the stack. Each card's group (its category's
    // place among the deck's distinct categories), the cards left in key order, the cards left
    // per group, and each group's category.
    withUnsafeTemporaryAllocation(of: Int.self, capacity: 4 * m) { scratch in
      guard let group = scratch.baseAddress else { return }
      let left = group + m
      let count = left + m
      let category = count + m
      var groups = 0
      for j in 0..<m {
        let c = categories[j]
        var g = 0
        while g < groups && category[g] != c { g += 1 }
        if g == groups {
          category[g] = c
          count[g] = 0
          groups += 1
        }
        count[g] += 1
        group[j] = g
        left[j] = j
      }
      // The previous card's group; -1 when its category is none of the deck's (or no card).
      var prev = -1
      if let previous {
        for g in 0..<groups where category[g] == previous { prev = g }
      }
      var n = m
      while n > 0 {
        var choice = -1
        var fallback = -1
        for t in 0..<n {
          let g = group[left[t]]
          if g == prev { continue }
          if fallback < 0 { fallback = t }
          count[g] -= 1
          let ok = DeckBuilder.arrangeable(count, groups, remaining: n - 1, first: g)
          count[g] += 1
          if ok {
            choice = t
            break
          }
        }
        let t = choice >= 0 ? choice : max(fallback, 0)
        let j = left[t]
        for u in t..<(n - 1) { left[u] = left[u + 1] }
        n -= 1
        count[group[j]] -= 1
        out.append(j)
        prev = group[j]
      }
    }
    return out
  }

  /// Whether `r` cards with these counts per group can follow a card of group `first` with no
  /// two neighbours alike: `first` may fill at most every other slot after it (r / 2), any other
  /// group every other slot from the first ((r + 1) / 2). These bounds are also sufficient.
  @inline(__always)
  private static func arrangeable(
    _ count: UnsafeMutablePointer<Int>, _ groups: Int, remaining r: Int, first: Int
  ) -> Bool {
    for g in 0..<groups where count[g] > (g == first ? r / 2 : (r + 1) / 2) {
      return false
    }
    return true
  }
}

/// What a date makes of the catalog for every diner's deck (`DeckBuilder.day(_:)`): the dishes
/// it allows (availability and exclusion) and, when the restaurant has no rules, the candidates
/// of a diner nothing else holds back. Every diner with no swipe yet gets those: made once per
/// date, not once per diner.
public struct DeckDay: Sendable {
  public let date: DeckDate
  /// Per catalog item: available on the date and not excluded (`DeckBuilder.dayMask(for:)`).
  public let mask: [Bool]
  let unconstrained: CandidateSet?
}

/// One diner's candidates under the deck rules: where the rules put them for any scores (a
/// stochastic strategy asks this for each ranking it draws). A class, so that the scoring
/// context that carries it copies one reference, not the rules' and candidates' arrays.
public final class DeckSlots: Sendable {
  public let builder: DeckBuilder
  public let candidates: CandidateSet

  public init(builder: DeckBuilder, candidates: CandidateSet) {
    self.builder = builder
    self.candidates = candidates
  }

  /// The candidates' positions (in `candidates.items`) in deck order, for these scores.
  public func order(_ scores: [Double]) -> [Int] {
    builder.deckOrder(candidates: candidates, scores: scores)
  }

  /// The candidates' positions in deck order, for a ranking given lazily in key order (see
  /// `DeckBuilder.deckOrder(candidates:keyOrder:)`): `next` is called only until the deck is
  /// full.
  public func order(keyOrder next: () -> Int?) -> [Int] {
    builder.deckOrder(candidates: candidates, keyOrder: next)
  }
}

/// Candidate positions in key order: not recently shown first, then score (descending, NaN
/// last), then catalog order. A deck takes its first few, so the heap first selects the
/// `lead` entries first in key order among the candidates not recently shown (one comparison
/// with the worst of them for most candidates, no copy of the others), sorted; only a deck that
/// pulls past them (caps and spreading pass cards over) heaps the rest: the entries after the
/// worst selected one, then the recently shown. Entries carry their whole key, so comparisons
/// touch one contiguous array. (`KeyHeapTests` checks every pop against a sort.)
struct KeyHeap {
  struct Entry {
    var score: UInt64
    var item: Int32
    var position: Int32
  }

  private let items: [Int32]
  private let recentlyShown: [Bool]
  private let scores: [Double]
  /// The first entries in key order among those not recently shown, best first.
  private var lead: [Entry]
  private var next = 0
  /// The worst entry of `lead` when some entry not recently shown is not in it.
  private var threshold: Entry?
  /// Made when `lead` runs out: the max-heaps of the other entries not recently shown, and of
  /// the recently shown.
  private var rest: [Entry]?
  private var recent: [Entry]?

  /// `wanted`: how many pops a deck usually needs (its size); the lead holds twice that, and 8
  /// more, before any heap is made.
  init(candidates: CandidateSet, scores: [Double], wanted: Int) {
    let (items, recentlyShown) = (candidates.items, candidates.recentlyShown)
    (self.items, self.recentlyShown, self.scores) = (items, recentlyShown, scores)
    let capacity = min(items.count, 2 * max(wanted, 0) + 8)
    var unseen = 0
    lead = items.withUnsafeBufferPointer { items in
      recentlyShown.withUnsafeBufferPointer { recent in
        scores.withUnsafeBufferPointer { scores in
          [Entry](unsafeUninitializedCapacity: capacity) { lead, filled in
            unseen = KeyHeap.select(items, recent, scores, into: lead, filled: &filled)
          }
        }
      }
    }
    if unseen > lead.count { threshold = lead[0] }
    lead.withUnsafeMutableBufferPointer { KeyHeap.sortWorstFirstHeap($0) }
  }

  /// Fills `lead` with the entries first in key order among those not recently shown: the first
  /// `lead.count` of them, then each later one that comes before the worst held replaces it
  /// (`lead` a heap with its worst entry at the root once full). Returns how many entries are
  /// not recently shown; `filled` is how many `lead` holds.
  private static func select(
    _ items: UnsafeBufferPointer<Int32>, _ recent: UnsafeBufferPointer<Bool>,
    _ scores: UnsafeBufferPointer<Double>, into lead: UnsafeMutableBufferPointer<Entry>,
    filled: inout Int
  ) -> Int {
    let capacity = lead.count
    let n = items.count
    var count = 0
    var unseen = 0
    var k = 0
    while k < n && count < capacity {
      if !recent[k] {
        let e = Entry(score: scoreKey(scores[k]), item: items[k], position: Int32(k))
        (lead.baseAddress! + count).initialize(to: e)
        count += 1
      }
      k += 1
    }
    unseen = count
    filled = count
    var i = count / 2 - 1
    while i >= 0 {
      siftDownWorstFirst(lead, i, count)
      i -= 1
    }
    guard count == capacity && capacity > 0 else { return unseen }
    // Most candidates fall behind the worst held: one comparison each, of the doubles
    // themselves while the worst held is a number (a NaN then compares false, and it does come
    // after every number; -0.0 equals 0.0 as in the keys), else of the keys.
    var worst = lead[0]
    var worstScore = scores[Int(worst.position)]
    while k < n {
      if !recent[k] {
        unseen += 1
        let s = scores[k]
        let ahead =
          worstScore.isNaN
          ? before(Entry(score: scoreKey(s), item: items[k], position: 0), worst)
          : s > worstScore || (s == worstScore && items[k] < worst.item)
        if ahead {
          lead[0] = Entry(score: scoreKey(s), item: items[k], position: Int32(k))
          siftDownWorstFirst(lead, 0, count)
          worst = lead[0]
          worstScore = scores[Int(worst.position)]
        }
      }
      k += 1
    }
    return unseen
  }

  /// Sorts a heap whose root is its worst entry into key order, best first (heapsort: the worst
  /// goes to the end, and so on).
  private static func sortWorstFirstHeap(_ h: UnsafeMutableBufferPointer<Entry>) {
    var n = h.count
    while n > 1 {
      n -= 1
      h.swapAt(0, n)
      siftDownWorstFirst(h, 0, n)
    }
  }

  /// Sifts `h[start]` down the heap of `h`'s first `n` entries whose root is the worst.
  @inline(__always)
  private static func siftDownWorstFirst(
    _ h: UnsafeMutableBufferPointer<Entry>, _ start: Int, _ n: Int
  ) {
    var i = start
    let moving = h[i]
    while true {
      let l = 2 * i + 1
      if l >= n { break }
      var worst = l
      let r = l + 1
      if r < n && before(h[l], h[r]) { worst = r }
      guard before(moving, h[worst]) else { break }
      h[i] = h[worst]
      i = worst
    }
    h[i] = moving
  }

  /// Maps a score to an unsigned key with the same order; NaN maps below every number (-infinity
  /// included) and -0.0 equals 0.0.
  @inline(__always)
  static func scoreKey(_ s: Double) -> UInt64 {
    // Without branches: adding 0.0 makes -0.0 0.0; a negative number has every bit flipped,
    // any other its sign bit set.
    let bits = (s + 0.0).bitPattern
    let negative = UInt64(bitPattern: Int64(bitPattern: bits) >> 63)
    let key = bits ^ (negative | (1 << 63))
    return s.isNaN ? 0 : key
  }

  @inline(__always)
  private static func before(_ a: Entry, _ b: Entry) -> Bool {
    a.score != b.score ? a.score > b.score : a.item < b.item
  }

  /// Makes `heap` a heap whose root is its best entry.
  private static func heapify(_ heap: inout [Entry]) {
    guard heap.count > 1 else { return }
    var i = heap.count / 2 - 1
    while i >= 0 {
      siftDown(&heap, i)
      i -= 1
    }
  }

  private static func siftDown(_ heap: inout [Entry], _ start: Int) {
    heap.withUnsafeMutableBufferPointer { h in
      var i = start
      let n = h.count
      let moving = h[i]
      while true {
        let l = 2 * i + 1
        if l >= n { break }
        var best = l
        let r = l + 1
        if r < n && before(h[r], h[l]) { best = r }
        guard before(h[best], moving) else { break }
        h[i] = h[best]
        i = best
      }
      h[i] = moving
    }
  }

  private static func pop(_ heap: inout [Entry]) -> Int? {
    guard let top = heap.first else { return nil }
    let last = heap.removeLast()
    if !heap.isEmpty {
      heap[0] = last
      siftDown(&heap, 0)
    }
    return Int(top.position)
  }

  /// The next candidate position in key order, or nil when all were taken.
  mutating func pop() -> Int? {
    if next < lead.count {
      next += 1
      return Int(lead[next - 1].position)
    }
    if rest == nil { makeHeaps() }
    return KeyHeap.pop(&rest!) ?? KeyHeap.pop(&recent!)
  }

  private mutating func makeHeaps() {
    var rest: [Entry] = []
    var recent: [Entry] = []
    for k in items.indices {
      let e = Entry(score: KeyHeap.scoreKey(scores[k]), item: items[k], position: Int32(k))
      if recentlyShown[k] {
        recent.append(e)
      } else if let threshold, KeyHeap.before(threshold, e) {
        rest.append(e)
      }
    }
    KeyHeap.heapify(&rest)
    KeyHeap.heapify(&recent)
    self.rest = rest
    self.recent = recent
  }
}
