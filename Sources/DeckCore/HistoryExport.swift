// A HistoryState's export: its tables and arrays as the records of a History.
extension HistoryState {
  /// The full record of a pair, spill included.
  func record(
    user: Int, item: Int32, right: UInt16, left: UInt16, lastRight: Int32, lastLeft: Int32
  )
    -> UserItemRecord
  {
    var r = UserItemRecord(
      item: item, right: Int32(right), left: Int32(left), lastRight: lastRight,
      lastLeft: lastLeft)
    if !spills.isEmpty, let s = spills[HistoryState.spillKey(user, item)] {
      r.right = Int32(truncatingIfNeeded: s.right &+ Int64(right))
      r.left = Int32(truncatingIfNeeded: s.left &+ Int64(left))
    }
    return r
  }

  /// The full record of a cell.
  func record(user: Int, item: Int32, _ c: Cell) -> UserItemRecord {
    var r = record(
      user: user, item: item, right: c.right, left: c.left,
      lastRight: HistoryState.day(ofCode: c.lastRight),
      lastLeft: HistoryState.day(ofCode: c.lastLeft))
    if c.lastRight == HistoryState.spilled || c.lastLeft == HistoryState.spilled {
      let s = spills[HistoryState.spillKey(user, item)]!
      if c.lastRight == HistoryState.spilled { r.lastRight = s.lastRight }
      if c.lastLeft == HistoryState.spilled { r.lastLeft = s.lastLeft }
    }
    return r
  }

  /// The history, diner `u` the one of id index `u` in `users`.
  func build(users ids: ByteIndex) throws(DeckCoreError) -> History {
    precondition(ids.count == userCount)
    func refused(_ bytes: Int) -> DeckCoreError {
      .outOfMemory(
        what: "the history of \(userCount) diner\(userCount == 1 ? "" : "s") and \(pairCount) "
          + "(diner, dish) pairs", bytes: bytes)
    }
    if refusedBytes != 0 { throw refused(refusedBytes) }
    var histories: [UserHistory] = []
    histories.reserveCapacity(userCount)
    // Per user with a table, the records in item order: from a bitmap over the catalog when that
    // is small next to the user's records, else by sorting (item, slot) keys. An array is in item
    // order already.
    let words = (itemCount + 63) / 64
    let bits = UnsafeMutablePointer<UInt64>.allocate(capacity: max(words, 1))
    bits.initialize(repeating: 0, count: max(words, 1))
    let slotOf = UnsafeMutablePointer<Int32>.allocate(capacity: max(itemCount, 1))
    slotOf.initialize(repeating: 0, count: max(itemCount, 1))
    defer {
      bits.deallocate()
      slotOf.deallocate()
    }
    var keys = [UInt64](repeating: 0, count: 64)
    // Every diner's records in one block, one after another. A diner with an array writes one
    // slot past its records (see `arrayRecords`), hence the slot more. A table's records are checked
    // against its count before they are written; an array has as many used cells as its count
    // (`add` and `moveToArray` count every cell they start), checked after.
    let storage: RecordStorage
    do {
      storage = try RecordStorage(capacity: pairCount + 1, hugePages: hugePages)
    } catch { throw refused(error.bytes) }
    var next = 0
    for u in 0..<userCount {
      let user = users[u]
      let count = Int(user.count)
      precondition(next + count <= pairCount, "pair counts disagree")
      let out = storage.base + next
      let k =
        user.isArray
        ? arrayRecords(user: u, into: out)
        : tableRecords(
          user: u, into: out, bits: bits, words: words, slotOf: slotOf, keys: &keys)
      precondition(k == count, "pair counts disagree")
      histories.append(
        UserHistory(
          id: ids.string(Int32(u)),
          records: UserItemRecords(storage: storage, offset: next, count: k),
          right: user.swipes[0], left: user.swipes[1]))
      next += k
    }
    // Right and left swipes per item; swipes and right swipes per position up to the highest.
    let (itemRight, itemLeft) = Self.unzipped(itemCounts, count: itemCount)
    let (positionShown, positionRight) = Self.unzipped(positions, count: topPosition)
    return History(
      itemRight: itemRight, itemLeft: itemLeft,
      users: UserHistories(index: ids, histories: histories),
      positionShown: positionShown, positionRight: positionRight, right: swipes[0],
      left: swipes[1])
  }

  /// Writes the records of a diner with a direct array from `out` on, in item order; returns
  /// their count. Every cell is written to the next free slot, which only moves on past a used
  /// cell (no branch to mispredict on a third of the cells), so `out` has one slot more.
  private func arrayRecords(user u: Int, into out: UnsafeMutablePointer<UserItemRecord>) -> Int {
    let cells = users[u].table.assumingMemoryBound(to: Cell.self)
    var k = 0
    if spills.isEmpty {
      // Arithmetic instead of selects, which the compiler would turn into branches.
      @inline(__always) func day(_ code: UInt16) -> Int32 {
        let d = Int32(code) &- 1
        return d ^ ((d ^ History.never) & (d &>> 31))
      }
      for item in 0..<itemCount {
        let c = cells[item]
        (out + k).initialize(
          to: UserItemRecord(
            item: Int32(truncatingIfNeeded: item), right: Int32(c.right),
            left: Int32(c.left), lastRight: day(c.lastRight), lastLeft: day(c.lastLeft)))
        let codes = c.bits &>> 32
        k &+= Int(truncatingIfNeeded: (codes | (0 &- codes)) &>> 63)
      }
    } else {
      for item in 0..<itemCount where cells[item].isUsed {
        (out + k).initialize(to: record(user: u, item: Int32(item), cells[item]))
        k += 1
      }
    }
    return k
  }

  /// Writes the records of a diner with a hash table from `out` on, in item order; returns their
  /// count. From a bitmap over the catalog (`bits`, `words` words, all zero again on return) when
  /// that is small next to the diner's records, else by sorting (item, slot) keys.
  private func tableRecords(
    user u: Int, into out: UnsafeMutablePointer<UserItemRecord>,
    bits: UnsafeMutablePointer<UInt64>, words: Int, slotOf: UnsafeMutablePointer<Int32>,
    keys: inout [UInt64]
  ) -> Int {
    let table = users[u].table.assumingMemoryBound(to: Pair.self)
    let capacity = users[u].capacity
    let count = Int(users[u].count)
    func record(slot j: Int) -> UserItemRecord {
      let p = table[j]
      return self.record(
        user: u, item: Int32(bitPattern: p.key &- 1), right: p.right, left: p.left,
        lastRight: p.lastRight, lastLeft: p.lastLeft)
    }
    var k = 0
    if words <= 4 * count + 8 {
      for j in 0..<capacity where table[j].key != 0 {
        let item = Int(table[j].key - 1)
        bits[item >> 6] |= 1 << UInt64(item & 63)
        slotOf[item] = Int32(j)
      }
      for w in 0..<words where bits[w] != 0 {
        var word = bits[w]
        bits[w] = 0
        while word != 0 {
          let item = w << 6 | word.trailingZeroBitCount
          precondition(k < count, "pair counts disagree")
          (out + k).initialize(to: record(slot: Int(slotOf[item])))
          k += 1
          word &= word &- 1
        }
      }
      return k
    }
    if keys.count < count { keys = [UInt64](repeating: 0, count: capacity) }
    keys.withUnsafeMutableBufferPointer { keys in
      for j in 0..<capacity where table[j].key != 0 {
        keys[k] = UInt64(table[j].key) << 32 | UInt64(j)
        k += 1
      }
      precondition(k == count, "pair counts disagree")
      sortKeys(UnsafeMutableBufferPointer(rebasing: keys[0..<k]))
      for i in 0..<k {
        let slot = Int(truncatingIfNeeded: keys[i] & 0xFFFF_FFFF)
        (out + i).initialize(to: record(slot: slot))
      }
    }
    return k
  }

  /// `count` pairs stored one after the other, as the array of their first and that of their
  /// second halves.
  private static func unzipped(_ pairs: UnsafeMutablePointer<Int32>, count: Int) -> (
    [Int32], [Int32]
  ) {
    var first = [Int32](repeating: 0, count: count)
    var second = [Int32](repeating: 0, count: count)
    for i in 0..<count {
      first[i] = pairs[2 * i]
      second[i] = pairs[2 * i + 1]
    }
    return (first, second)
  }
}

/// Sorts keys ascending: insertion sort for the short runs most diners have, the standard sort
/// beyond.
func sortKeys(_ buffer: UnsafeMutableBufferPointer<UInt64>) {
  var r = buffer
  if r.count > 48 {
    r.sort()
    return
  }
  var i = 1
  while i < r.count {
    let x = r[i]
    var j = i
    while j > 0 && r[j - 1] > x {
      r[j] = r[j - 1]
      j -= 1
    }
    r[j] = x
    i += 1
  }
}
