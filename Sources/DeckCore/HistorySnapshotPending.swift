// The pending swipes of a snapshot: added up by a later ingest, applied by a deck run for a later
// date.
extension HistorySnapshot {
  /// The snapshot with its pending swipes dated before `date` (all of them when nil) added up
  /// into the aggregates, as if the ingest that read them had counted them; the later ones stay
  /// pending. It is the snapshot that ingesting the same logs with the limit `date` gives, to
  /// the byte: adding up does not depend on when or in which order swipes are added.
  public func counting(before date: DeckDate?) throws(DeckCoreError) -> HistorySnapshot {
    let due = pendingCount(before: date)
    guard due > 0 else { return self }
    var builder = SnapshotBuilder()
    for p in pending[..<due] {
      let user = builder.userSlot(p.user)
      let item = builder.itemSlot(p.item)
      builder.add(user: user, item: item, swipe: p.swipe, day: p.day, position: p.position)
    }
    var rest = self
    rest.pending = Array(pending[due...])
    return try HistorySnapshot.merge(rest, builder.build())
  }

  /// How many pending swipes are dated before `date` (all of them when nil). They are the first
  /// ones: the list is in order of day.
  public func pendingCount(before date: DeckDate?) -> Int {
    guard let date else { return pending.count }
    let day = date.daysSinceEpoch
    var low = 0
    var high = pending.count
    while low < high {
      let mid = (low + high) / 2
      if pending[mid].day < day { low = mid + 1 } else { high = mid }
    }
    return low
  }

  /// The diners the snapshot holds swipes of, added up or pending.
  public var dinerCount: Int {
    guard !pending.isEmpty else { return users.count }
    var ids = Set(users.map { IDKey($0.id) })
    for p in pending { ids.insert(IDKey(p.user)) }
    return ids.count
  }
}
