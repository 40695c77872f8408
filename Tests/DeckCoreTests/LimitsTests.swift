import Testing

@testable import DeckCore

/// Values at and past the limits of the core types: errors, never traps.
@Suite struct LimitsTests {
  private static let catalog = try! Catalog(
    items: ["a", "b"].map { MenuItem(id: $0, name: $0, category: "c") })

  private static func snapshot(
    items: [HistorySnapshot.Item], users: [HistorySnapshot.User] = [], source: String,
    hesitations: Int64 = 0
  ) -> HistorySnapshot {
    HistorySnapshot(
      sources: [
        HistorySnapshot.Source(sha256: source, path: source, bytes: 1, lines: 1, events: 1)
      ], items: items, users: users, firstDay: 20_000, lastDay: 20_001, hesitations: hesitations)
  }

  private static func record(_ item: Int32, right: Int32, left: Int32 = 0)
    -> HistorySnapshot.Record
  {
    HistorySnapshot.Record(
      item: item, right: right, left: left, lastRight: right > 0 ? 20_000 : History.never,
      lastLeft: left > 0 ? 20_000 : History.never)
  }

  @Test func theSupportedDaysAreYearsOneTo9999() {
    #expect(
      DeckDate(year: 1, month: 1, day: 1)!.daysSinceEpoch == DeckDate.supportedDays.lowerBound)
    #expect(
      DeckDate(year: 9999, month: 12, day: 31)!.daysSinceEpoch
        == DeckDate.supportedDays.upperBound)
  }

  // MARK: Merge

  @Test func aMergeWhoseSumsOverflowIsAnError() {
    let big = Int64.max - 5
    let a = Self.snapshot(
      items: [.init(id: "a", right: big, left: 0, positions: [])], source: "a")
    let b = Self.snapshot(items: [.init(id: "a", right: 10, left: 0, positions: [])], source: "b")
    #expect(
      throws: DeckCoreError.invalidSnapshot(
        "the right swipes of dish 'a' add up to more than \(Int64.max); the snapshots are corrupt"
          + " or hold too much: merge or ingest fewer of them")
    ) { try HistorySnapshot.merge(a, b) }
    // Positions, hesitations and the total of all dishes are checked too.
    let pa = Self.snapshot(
      items: [
        .init(id: "a", right: 1, left: 0, positions: [.init(position: 2, shown: big, right: 0)])
      ],
      source: "a")
    let pb = Self.snapshot(
      items: [
        .init(id: "a", right: 1, left: 0, positions: [.init(position: 2, shown: 9, right: 0)])
      ],
      source: "b")
    #expect(throws: DeckCoreError.self) { try HistorySnapshot.merge(pa, pb) }
    let ha = Self.snapshot(items: [], source: "a", hesitations: big)
    let hb = Self.snapshot(items: [], source: "b", hesitations: 6)
    #expect(
      throws: DeckCoreError.invalidSnapshot(
        "the hesitations add up to more than \(Int64.max); the snapshots are corrupt or hold too "
          + "much: merge or ingest fewer of them")
    ) { try HistorySnapshot.merge(ha, hb) }
    let ta = Self.snapshot(items: [.init(id: "a", right: big, left: 0, positions: [])], source: "a")
    let tb = Self.snapshot(items: [.init(id: "b", right: 10, left: 0, positions: [])], source: "b")
    #expect(throws: DeckCoreError.self) { try HistorySnapshot.merge(ta, tb) }
    // `events` of such a snapshot saturates instead of trapping.
    var both = ta
    both.items.append(.init(id: "b", right: 10, left: 0, positions: []))
    #expect(both.events == .max)
  }

  @Test func aMergeWhoseRecordsOverflow32BitsIsAnError() {
    let a = Self.snapshot(
      items: [.init(id: "a", right: Int64(Int32.max), left: 0, positions: [])],
      users: [.init(id: "u1", records: [Self.record(0, right: .max)])], source: "a")
    let b = Self.snapshot(
      items: [.init(id: "a", right: 1, left: 0, positions: [])],
      users: [.init(id: "u1", records: [Self.record(0, right: 1)])], source: "b")
    #expect(
      throws: DeckCoreError.invalidSnapshot(
        "the swipes of diner 'u1' on one dish add up to more than 2147483647; the snapshots are "
          + "corrupt or hold too much: merge fewer of them")
    ) { try HistorySnapshot.merge(a, b) }
  }

  // MARK: Snapshot to history

  @Test func aSnapshotBeyondWhatAHistoryCountsIsRefused() throws {
    // Two diners' right swipes on dish a: each fits 32 bits, the dish's total does not.
    let dish = Self.snapshot(
      items: [.init(id: "a", right: Int64(Int32.max) + 1, left: 0, positions: [])],
      users: [
        .init(id: "u1", records: [Self.record(0, right: .max)]),
        .init(id: "u2", records: [Self.record(0, right: 1)]),
      ], source: "a")
    #expect(
      throws: DeckCoreError.invalidSnapshot(
        "dish 'a' has more swipes than a deck history counts (2147483647); the snapshot is "
          + "corrupt or holds too much: ingest fewer logs into it")
    ) { try dish.history(for: Self.catalog, before: nil) }
    // One diner's swipes over two dishes.
    let diner = Self.snapshot(
      items: [
        .init(id: "a", right: Int64(Int32.max), left: 0, positions: []),
        .init(id: "b", right: 1, left: 0, positions: []),
      ],
      users: [.init(id: "u1", records: [Self.record(0, right: .max), Self.record(1, right: 1)])],
      source: "a")
    #expect(
      throws: DeckCoreError.invalidSnapshot(
        "diner 'u1' has more swipes than a deck history counts (2147483647); the snapshot is "
          + "corrupt or holds too much: ingest fewer logs into it")
    ) { try diner.history(for: Self.catalog, before: nil) }
    // One position over two dishes.
    let position = Self.snapshot(
      items: [
        .init(
          id: "a", right: 0, left: 0,
          positions: [.init(position: 1, shown: Int64(Int32.max), right: 0)]
        ),
        .init(id: "b", right: 0, left: 0, positions: [.init(position: 1, shown: 1, right: 0)]),
      ], source: "a")
    #expect(throws: DeckCoreError.self) { try position.history(for: Self.catalog, before: nil) }
    // At the limit it still works.
    let full = Self.snapshot(
      items: [.init(id: "a", right: Int64(Int32.max), left: 0, positions: [])],
      users: [.init(id: "u1", records: [Self.record(0, right: .max)])], source: "a")
    let (history, _, _) = try full.history(for: Self.catalog, before: nil)
    #expect(history.itemRight == [.max, 0])
    #expect(history.users["u1"]?.right == .max)
  }

  // MARK: Deck rules

  @Test func extremeDaysDoNotTrapTheDeckRules() throws {
    var b = HistoryBuilder(itemCount: 2)
    let u = b.userSlot("u")
    b.add(user: u, item: 0, swipe: .right, day: Int32.min + 1)
    b.add(user: u, item: 1, swipe: .left, day: -5)
    let history = try b.build()
    let builder = try DeckBuilder(catalog: Self.catalog, rules: DeckRules())
    for today in [Int32.max, Int32.max - 1, 0, Int32.min + 2] {
      let set = builder.candidates(
        for: UserProfile(id: "u"), history: history.users["u"],
        date: DeckDate(daysSinceEpoch: today))
      #expect(set.items.count + set.heldBack.reduce(0, +) == 2)
    }
  }

  @Test func rulesBeyondTheirLimitsAreRefused() {
    var rules = DeckRules()
    rules.size = DeckRules.maxSize
    #expect(throws: Never.self) { try rules.validate() }
    rules.size = DeckRules.maxSize + 1
    #expect(throws: DeckCoreError.invalidRules("size must be at most 10000, got 10001")) {
      try rules.validate()
    }
    rules.size = .max
    #expect(throws: DeckCoreError.self) { try DeckBuilder(catalog: Self.catalog, rules: rules) }
    rules = DeckRules()
    rules.maxPerCategory = 10_001
    #expect(throws: DeckCoreError.invalidRules("maxPerCategory must be at most 10000, got 10001")) {
      try rules.validate()
    }
    rules = DeckRules()
    rules.cooldownDays = .max
    #expect(
      throws: DeckCoreError.invalidRules(
        "cooldownDays must be at most 36500, got \(Int.max)")
    ) { try rules.validate() }
  }

  // MARK: Memory

  @Test func memoryTheSystemRefusesIsAnOutOfMemoryError() {
    // Far beyond any address space: the mapping fails, and the size does not overflow.
    #expect(HistoryState.allocateChunk(1 << 60) == nil)
    #expect(throws: MemoryRefused.self) { try RecordStorage(capacity: 1 << 58) }
    #expect(throws: MemoryRefused.self) { try RecordStorage(capacity: .max) }
    // A snapshot whose records need more than the system gives.
    #expect(throws: MemoryRefused.self) { try RecordStorage(capacity: 1 << 44) }
  }

  @Test(arguments: [0, 1, 3])
  func aBuilderThatRunsOutOfMemoryThrowsAndNamesTheDiners(afterChunks: Int) {
    var b = HistoryBuilder(itemCount: 5_000)
    b.limitArena(toBytes: afterChunks * HistoryState.chunkBytes)
    // Every diner swipes every dish: tables grow, become arrays, and take chunk after chunk.
    for user in 0..<400 {
      let u = b.userSlot("u\(user)")
      for item in 0..<5_000 where item % 2 == user % 2 {
        b.add(user: u, item: Int32(item), swipe: .left, day: 20_000)
      }
    }
    // Copies of a failed builder stay failed, and adding more changes nothing.
    var copy = b
    copy.add(user: copy.userSlot("late"), item: 1, swipe: .right, day: 20_000)
    for builder in [b, copy] {
      do {
        _ = try builder.build()
        Issue.record("built a history in \(afterChunks) chunks")
      } catch {
        guard case .outOfMemory(let what, let bytes) = error else {
          Issue.record("unexpected \(error)")
          continue
        }
        #expect(what.hasPrefix("the history of "))
        #expect(what.contains(" diners and "))
        #expect(bytes >= HistoryState.chunkBytes)
        #expect(error.description.hasPrefix("out of memory building the history of "))
      }
    }
  }

  @Test func bulkAddsAfterARefusalAddNothing() {
    var b = HistoryBuilder(itemCount: 3)
    b.limitArena(toBytes: 0)
    let u = b.userSlot("u")
    let swipes = (0..<100).map {
      HistoryBuilder.Swipe(user: u, item: Int32($0 % 3), swipe: .right, day: 20_000)
    }
    swipes.withUnsafeBufferPointer { b.add($0) }
    b.add(user: u, item: 0, swipe: .left, day: 20_000)
    #expect(throws: DeckCoreError.self) { try b.build() }
  }
}
