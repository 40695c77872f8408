import DeckCore

/// Reads swipe logs into a `SnapshotBuilder` (ids kept as they are, whatever the catalog).
package struct SnapshotIngest: EventSink {
  package private(set) var builder = SnapshotBuilder()
  private var items = ByteTable(capacity: 1024)
  private var itemSlots: [Int32] = []
  private var users = ByteTable(capacity: 1024)
  private var userSlots: [Int32] = []
  private var lastUser: Int32 = -1
  /// Swipes on or after this day are not aggregated (counted in `skippedFuture`).
  package let cutoff: DeckDate?
  package private(set) var skippedFuture = 0

  package init(cutoff: DeckDate? = nil) {
    self.cutoff = cutoff
  }

  package mutating func event(_ e: RawEvent) -> EventDisposition {
    if let cutoff, e.day >= cutoff.daysSinceEpoch {
      skippedFuture += 1
      return .accepted
    }
    let (itemIndex, newItem) = items.insert(e.item)
    if newItem { itemSlots.append(builder.itemSlot(String(decoding: e.item, as: UTF8.self))) }
    let u: Int32
    if lastUser >= 0 && users.keyEquals(lastUser, e.user) {
      u = lastUser
    } else {
      let (index, inserted) = users.insert(e.user)
      if inserted { userSlots.append(builder.userSlot(String(decoding: e.user, as: UTF8.self))) }
      u = index
      lastUser = index
    }
    builder.add(
      user: userSlots[Int(u)], item: itemSlots[Int(itemIndex)], swipe: e.swipe, day: e.day,
      position: e.position)
    return .accepted
  }
}
