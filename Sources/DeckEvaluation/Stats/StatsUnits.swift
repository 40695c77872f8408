import DeckCore

// The stats engine's side of `compare`: per-diner sums (`StatsAccumulator.unitTable`, in
// StatsAccumulator.swift next to the state it reads) and per-day curves.

extension StatsMetric {
  /// How the metric is made from per-diner sums: counts are `.total`, `catalog_coverage` is
  /// `.coverage`, every rate and mean is `.ratio` (see `StatsAccumulator.unitTable`).
  package func unitForm(catalogItems: Int) -> MetricForm {
    switch self {
    case .decks, .cardsShown, .rightSwipes, .leftSwipes: .total
    case .catalogCoverage: .coverage(catalogItems: catalogItems)
    default: .ratio
    }
  }

  /// The metric as a column of a `UnitTable`: its name, definition and `unitForm`.
  package func metricSpec(catalogItems: Int) -> MetricSpec {
    MetricSpec(name: name, definition: definition, form: unitForm(catalogItems: catalogItems))
  }
}

extension StatsReport {
  /// The per-day curves of `metrics` for `strategies`, from the rows of each day: metric by
  /// metric, and for each the strategies in the order given.
  ///
  /// The days are those of the report (every day with a session or a ground-truth record, plus
  /// `options.days`), ascending, so that in a simulation a day without sessions is a nil point.
  /// A strategy without rows (one the input never named) has a nil point every day.
  package func dailySeries(
    strategies: [String],
    metrics: [StatsMetric] = [.likeRate, .pickRate, .meanSwipesToPick]
  ) -> [DailySeries] {
    var days: [DeckDate] = []
    var seenDays = Set<Int32>()
    var byStrategy: [String: [Int32: StatsRow]] = [:]
    for row in rows {
      guard let day = row.day else { continue }
      if seenDays.insert(day.daysSinceEpoch).inserted { days.append(day) }
      byStrategy[row.strategy, default: [:]][day.daysSinceEpoch] = row
    }
    days.sort { $0.daysSinceEpoch < $1.daysSinceEpoch }
    var series: [DailySeries] = []
    for metric in metrics {
      for strategy in strategies {
        let rows = byStrategy[strategy] ?? [:]
        series.append(
          DailySeries(
            arm: strategy, metric: metric.name,
            points: days.map { DailyPoint(day: $0, value: rows[$0.daysSinceEpoch]?[metric]) }))
      }
    }
    return series
  }
}

extension StatsAccumulator {
  /// The per-day curves of `metrics` for `strategies` (`StatsReport.dailySeries`). It computes
  /// the report; call that one when the report is at hand.
  package func dailySeries(
    strategies: [String],
    metrics: [StatsMetric] = [.likeRate, .pickRate, .meanSwipesToPick]
  ) -> [DailySeries] {
    report().dailySeries(strategies: strategies, metrics: metrics)
  }
}

/// Shows per (index, catalog item), the index being a (strategy, user) pair of the accumulator:
/// an open-addressing hash table with linear probing, 12 bytes a slot (a packed 64-bit key and a
/// 32-bit count), between 35% and 70% full, so 17 to 34 bytes a distinct pair. The keys are
/// never removed.
struct UnitShowCounts: Sendable {
  /// `unit << 32 | item`; meaningful where `counts` is not 0.
  private var keys: [UInt64]
  /// Shows of the key; 0 marks an empty slot.
  private var counts: [Int32]
  /// The distinct (unit, item) pairs held.
  private(set) var count = 0
  /// 64 - log2(slots): the top bits of the multiplied key pick the slot.
  private var shift: UInt64

  init() {
    keys = Array(repeating: 0, count: 1024)
    counts = Array(repeating: 0, count: 1024)
    shift = 64 - 10
  }

  /// Adds one show of `item` to `unit`.
  @inline(__always)
  mutating func increment(unit: Int32, item: Int32) {
    add(unit: unit, item: item, shows: 1)
  }

  /// Adds `shows` (at least 1) shows of `item` to `unit`.
  @inline(__always)
  mutating func add(unit: Int32, item: Int32, shows: Int32) {
    let key = UInt64(UInt32(bitPattern: unit)) << 32 | UInt64(UInt32(bitPattern: item))
    let mask = counts.count - 1
    var i = PackedSlots.slot(key, shift)
    while counts[i] != 0 {
      if keys[i] == key {
        counts[i] += shows
        return
      }
      i = (i + 1) & mask
    }
    keys[i] = key
    counts[i] = shows
    count += 1
    if count * 10 > counts.count * 7 { grow() }
  }

  /// Shows of `item` to `unit` (0 when never shown).
  func shows(unit: Int32, item: Int32) -> Int32 {
    let key = UInt64(UInt32(bitPattern: unit)) << 32 | UInt64(UInt32(bitPattern: item))
    let mask = counts.count - 1
    var i = PackedSlots.slot(key, shift)
    while counts[i] != 0 {
      if keys[i] == key { return counts[i] }
      i = (i + 1) & mask
    }
    return 0
  }

  /// Every pair with its shows, ascending by unit, then by item.
  func sortedEntries() -> [(unit: Int32, item: Int32, shows: Int32)] {
    var entries: [(key: UInt64, shows: Int32)] = []
    entries.reserveCapacity(count)
    for i in counts.indices where counts[i] != 0 { entries.append((keys[i], counts[i])) }
    entries.sort { $0.key < $1.key }
    return entries.map { entry in
      (
        Int32(bitPattern: UInt32(truncatingIfNeeded: entry.key >> 32)),
        Int32(bitPattern: UInt32(truncatingIfNeeded: entry.key)), entry.shows
      )
    }
  }

  private mutating func grow() { PackedSlots.grow(keys: &keys, values: &counts, shift: &shift) }
}

/// A map from 64-bit keys to dense indices (0, 1, 2, ... in insertion order): an open-addressing
/// table with linear probing and a multiplicative hash, between 35% and 70% full, 12 bytes a
/// slot. It replaces a `Dictionary` on the paths that look up a key per swipe (SipHash there is
/// most of the cost on a log of many interleaved diners); keys are never removed.
struct PackedIndex: Sendable {
  private var keys: [UInt64]
  /// The index of the key, plus 1; 0 marks an empty slot.
  private var slots: [Int32]
  private(set) var count = 0
  private var shift: UInt64

  init() {
    keys = Array(repeating: 0, count: 1024)
    slots = Array(repeating: 0, count: 1024)
    shift = 64 - 10
  }

  /// The index of `key`, or nil.
  @inline(__always)
  func find(_ key: UInt64) -> Int32? {
    let mask = slots.count - 1
    var i = PackedSlots.slot(key, shift)
    while slots[i] != 0 {
      if keys[i] == key { return slots[i] - 1 }
      i = (i + 1) & mask
    }
    return nil
  }

  /// The index of `key`, given the next index (`count`) when it is new.
  @inline(__always)
  mutating func insert(_ key: UInt64) -> (index: Int32, inserted: Bool) {
    let mask = slots.count - 1
    var i = PackedSlots.slot(key, shift)
    while slots[i] != 0 {
      if keys[i] == key { return (slots[i] - 1, false) }
      i = (i + 1) & mask
    }
    let index = Int32(count)
    keys[i] = key
    slots[i] = index + 1
    count += 1
    if count * 10 > slots.count * 7 { grow() }
    return (index, true)
  }

  private mutating func grow() { PackedSlots.grow(keys: &keys, values: &slots, shift: &shift) }
}

/// The slot arithmetic of the two tables above (`UnitShowCounts`, `PackedIndex`): 64-bit keys
/// beside 32-bit values in two arrays of a power-of-two size, a value of 0 marking an empty
/// slot, linear probing.
private enum PackedSlots {
  /// The slot of `key`: its bits mixed, then the top bits of a multiplicative hash. (Never fill
  /// a table in another table's slot order, copy in key order: keys that land in slot order
  /// pile up behind one another under linear probing.)
  @inline(__always)
  static func slot(_ key: UInt64, _ shift: UInt64) -> Int {
    var x = key ^ (key >> 33)
    x = x &* 0xFF51_AFD7_ED55_8CCD
    x ^= x >> 33
    return Int(truncatingIfNeeded: (x &* 0x9E37_79B9_7F4A_7C15) >> shift)
  }

  /// Doubles the table, placing every held key again (`shift` one less).
  static func grow(keys: inout [UInt64], values: inout [Int32], shift: inout UInt64) {
    let oldKeys = keys
    let oldValues = values
    let size = oldValues.count * 2
    keys = Array(repeating: 0, count: size)
    values = Array(repeating: 0, count: size)
    shift -= 1
    let mask = size - 1
    for j in oldValues.indices where oldValues[j] != 0 {
      var i = slot(oldKeys[j], shift)
      while values[i] != 0 { i = (i + 1) & mask }
      keys[i] = oldKeys[j]
      values[i] = oldValues[j]
    }
  }
}
