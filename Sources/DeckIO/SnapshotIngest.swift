import DeckCore

/// Reads swipe logs into a `SnapshotBuilder` (ids kept as they are, whatever the catalog).
///
/// Swipes dated on or after `cutoff` are kept one by one as pending swipes
/// (`HistorySnapshot.pending`), not added up: nothing a log holds is dropped. With a catalog,
/// swipes of dishes it does not have are still kept, and reported to the reader as
/// `.unknownItem`, so that it counts them and keeps the first one's line.
package struct SnapshotIngest: EventSink {
  package private(set) var builder = SnapshotBuilder()
  /// Items and users by their bytes; per index their id, and their builder slot (-1 until a
  /// swipe of theirs is added up: a dish or diner with pending swipes only is no aggregate).
  private var items = ByteTable(capacity: 1024)
  private var itemIDs: [String] = []
  private var itemSlots: [Int32] = []
  /// Per item: whether the catalog has it (all true without a catalog).
  private var itemKnown: [Bool] = []
  private var users = ByteTable(capacity: 1024)
  private var userIDs: [String] = []
  private var userSlots: [Int32] = []
  private var lastUser: Int32 = -1
  private let catalog: ItemIndex?
  /// Swipes on or after this day are kept pending.
  package let cutoff: DeckDate?
  /// The line of the first pending swipe (0 when there is none, or it came from no file).
  package private(set) var firstPendingLine = 0

  package init(cutoff: DeckDate? = nil, catalog: Catalog? = nil) {
    self.cutoff = cutoff
    self.catalog = catalog.map { ItemIndex(ids: $0.items.map(\.id)) }
  }

  /// Swipes kept pending so far.
  package var pendingCount: Int { builder.pendingCount }

  package mutating func event(_ e: RawEvent) -> EventDisposition {
    let (item, newItem) = items.insert(e.item)
    if newItem {
      itemIDs.append(String(decoding: e.item, as: UTF8.self))
      itemSlots.append(-1)
      itemKnown.append(catalog.map { $0.find(e.item) != nil } ?? true)
    }
    let u: Int32
    if lastUser >= 0 && users.keyEquals(lastUser, e.user) {
      u = lastUser
    } else {
      let (index, inserted) = users.insert(e.user)
      if inserted {
        userIDs.append(String(decoding: e.user, as: UTF8.self))
        userSlots.append(-1)
      }
      u = index
      lastUser = index
    }
    let disposition: EventDisposition = itemKnown[Int(item)] ? .accepted : .unknownItem
    let day = e.day
    if let cutoff, day >= cutoff.daysSinceEpoch {
      if builder.pendingCount == 0 { firstPendingLine = e.line }
      builder.addPending(
        HistorySnapshot.PendingSwipe(
          day: day, user: userIDs[Int(u)], item: itemIDs[Int(item)], swipe: e.swipe,
          position: max(0, e.position)))
      return disposition
    }
    if itemSlots[Int(item)] < 0 { itemSlots[Int(item)] = builder.itemSlot(itemIDs[Int(item)]) }
    if userSlots[Int(u)] < 0 { userSlots[Int(u)] = builder.userSlot(userIDs[Int(u)]) }
    builder.add(
      user: userSlots[Int(u)], item: itemSlots[Int(item)], swipe: e.swipe, day: day,
      position: e.position)
    return disposition
  }
}
