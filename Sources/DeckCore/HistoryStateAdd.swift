// The hot path of a HistoryState: one swipe into a diner's table or array, the batch that reads
// ahead, and the growth of a table.
//
// A diner's table keeps its own layout rather than DeckCore's `WordTable`: 16-byte pairs (key,
// counts and days in one slot) in regions recycled between diners, growing fourfold while small
// and turning into a direct array; a shared table would need a value stored out of line or 8
// more bytes a pair. The slot (`HashMix.fibonacci32`) and the probe step (`HashMix.next`) are the
// shared ones.
extension HistoryState {
  @inlinable @inline(__always)
  static func slot(_ item: Int32, _ shift: UInt32) -> Int {
    HashMix.fibonacci32(UInt32(bitPattern: item), shift: shift)
  }

  @inlinable @inline(__always)
  static func spillKey(_ user: Int, _ item: Int32) -> UInt64 {
    UInt64(truncatingIfNeeded: user) << 32 | UInt64(UInt32(bitPattern: item))
  }

  @inlinable @inline(__always)
  mutating func add(
    user: Int32, item: Int32, right isRight: Bool, day: Int32, position: Int32, cutoffDay: Int64
  ) {
    precondition(UInt(bitPattern: Int(item)) < UInt(itemCount), "item index out of range")
    precondition(UInt(bitPattern: Int(user)) < UInt(userCount), "user slot out of range")
    if Int64(day) >= cutoffDay {
      skippedFuture &+= 1
      return
    }
    // Out of memory: tables may be missing, and `build` will throw.
    if _slowPath(refusedBytes != 0) { return }
    // The direction picks counters by index, not by branch (it is unpredictable).
    let u = users + Int(user)
    let side = isRight ? 0 : 1
    itemCounts[2 &* Int(item) &+ side] &+= 1
    u.pointee.swipes[side] &+= 1
    swipes[side] &+= 1
    let p = Int(position) &- 1
    if UInt(bitPattern: p) < UInt(HistoryState.maxPosition) {
      positions[2 &* p] &+= 1
      positions[2 &* p &+ 1] &+= isRight ? 1 : 0
      if p >= topPosition { topPosition = p &+ 1 }
    }
    let shift = u.pointee.shift
    if shift == 0 {
      addToArray(user: user, item: item, right: isRight, day: day)
      return
    }
    let table = u.pointee.table.assumingMemoryBound(to: Pair.self)
    let mask = (1 &<< Int(32 &- shift)) &- 1
    let key = UInt32(bitPattern: item) &+ 1
    var i = HistoryState.slot(item, shift)
    while true {
      let e = table + i
      let k = e.pointee.key
      if k == key {
        if isRight {
          if e.pointee.right == .max { carry(user: user, item: item, right: true) }
          e.pointee.right &+= 1
          if day > e.pointee.lastRight { e.pointee.lastRight = day }
        } else {
          if e.pointee.left == .max { carry(user: user, item: item, right: false) }
          e.pointee.left &+= 1
          if day > e.pointee.lastLeft { e.pointee.lastLeft = day }
        }
        return
      }
      if k == 0 { break }
      i = HashMix.next(i, mask: mask)
    }
    let fresh = Pair(
      key: key, right: isRight ? 1 : 0, left: isRight ? 0 : 1,
      lastRight: isRight ? day : History.never, lastLeft: isRight ? History.never : day)
    if (Int(u.pointee.count) &+ 1) &* 4 <= (mask &+ 1) &* 3 {
      table[i] = fresh
      u.pointee.count &+= 1
      pairCount &+= 1
    } else {
      insertGrowing(user: Int(user), fresh)
    }
  }

  /// The update of a diner with a direct array: the count and the day chosen by the direction,
  /// by shifts; a count about to wrap or a day without a code takes the slow path.
  @inlinable @inline(__always)
  mutating func addToArray(user: Int32, item: Int32, right isRight: Bool, day: Int32) {
    let u = users + Int(user)
    let c = u.pointee.table.assumingMemoryBound(to: Cell.self) + Int(item)
    let bits = c.pointee.bits
    let countAt = Cell.countOffset(right: isRight)
    let dayAt = countAt &+ 32
    let count = (bits &>> countAt) & 0xFFFF
    let last = (bits &>> dayAt) & 0xFFFF
    let code = UInt64(HistoryState.dayCode(day))
    let spilled = UInt64(HistoryState.spilled)
    if count == 0xFFFF || last == spilled || code == spilled {
      addToArraySlowly(user: user, item: item, right: isRight, day: day)
      return
    }
    let used: Int32 = bits &>> 32 != 0 ? 0 : 1
    u.pointee.count &+= used
    pairCount &+= Int(used)
    c.pointee.bits = (bits &+ (1 &<< countAt)) ^ ((last ^ max(last, code)) &<< dayAt)
  }

  /// `addToArray` for a count about to wrap to 0 or a day that has no code or meets one that is
  /// spilled.
  @usableFromInline @inline(never)
  mutating func addToArraySlowly(user: Int32, item: Int32, right isRight: Bool, day: Int32) {
    let u = users + Int(user)
    let c = u.pointee.table.assumingMemoryBound(to: Cell.self) + Int(item)
    if !c.pointee.isUsed {
      u.pointee.count &+= 1
      pairCount &+= 1
    }
    let countAt = Cell.countOffset(right: isRight)
    if c.pointee.field(countAt) == .max { carry(user: user, item: item, right: isRight) }
    c.pointee.set(countAt, c.pointee.field(countAt) &+ 1)
    let code = HistoryState.dayCode(day)
    let last = c.pointee.field(countAt + 32)
    if last < code && code != HistoryState.spilled {
      c.pointee.set(countAt + 32, code)
    } else if last == HistoryState.spilled || code == HistoryState.spilled {
      spillDay(user: user, item: item, right: isRight, day: day)
    }
  }

  /// A 16-bit count is about to wrap to 0: its 65,536 go to the spill.
  @usableFromInline @inline(never)
  mutating func carry(user: Int32, item: Int32, right: Bool) {
    let key = HistoryState.spillKey(Int(user), item)
    if right {
      spills[key, default: Spill()].right += 0x1_0000
    } else {
      spills[key, default: Spill()].left += 0x1_0000
    }
  }

  /// A day that has no cell code, or a cell whose day is already spilled: the latest day goes to
  /// the spill (with the cell's own day, if it had one) and the cell says `spilled`.
  @usableFromInline @inline(never)
  mutating func spillDay(user: Int32, item: Int32, right: Bool, day: Int32) {
    let c = users[Int(user)].table.assumingMemoryBound(to: Cell.self) + Int(item)
    let key = HistoryState.spillKey(Int(user), item)
    var s = spills[key] ?? Spill()
    let dayAt = Cell.countOffset(right: right) + 32
    let old = c.pointee.field(dayAt)
    if right {
      if old != HistoryState.spilled { s.lastRight = HistoryState.day(ofCode: old) }
      s.lastRight = max(s.lastRight, day)
    } else {
      if old != HistoryState.spilled { s.lastLeft = HistoryState.day(ofCode: old) }
      s.lastLeft = max(s.lastLeft, day)
    }
    c.pointee.set(dayAt, HistoryState.spilled)
    spills[key] = s
  }

  mutating func add(_ swipes: UnsafeBufferPointer<HistoryBuilder.Swipe>, cutoffDay: Int64) {
    if refusedBytes != 0 { return }
    // Pass 1: the address of the memory each swipe will update, then a tight loop of
    // independent loads of them all (the tighter the loop, the more loads the processor keeps in
    // flight at once).
    if scratchCapacity < swipes.count {
      scratch.deallocate()
      scratchCapacity = swipes.count
      scratch = .allocate(capacity: scratchCapacity)
    }
    var m = 0
    for s in swipes
    where UInt(bitPattern: Int(s.user)) < UInt(userCount)
      && UInt(bitPattern: Int(s.item)) < UInt(itemCount)
    {
      let u = users[Int(s.user)]
      let offset =
        u.isArray
        ? Int(s.item) &* MemoryLayout<Cell>.stride
        : HistoryState.slot(s.item, u.shift) &* MemoryLayout<Pair>.stride
      scratch[m] = UnsafeRawPointer(u.table + offset)
      m &+= 1
    }
    var t: UInt8 = 0
    for k in 0..<m { t |= scratch[k].load(as: UInt8.self) }
    touched = t
    // Pass 2: the updates, now mostly from cache.
    for s in swipes {
      add(
        user: s.user, item: s.item, right: s.bits & 1 != 0, day: s.day, position: s.bits >> 1,
        cutoffDay: cutoffDay)
    }
  }

  /// Tables below this many slots grow fourfold, larger ones double: fewer moves (each one reads
  /// and writes memory that is seldom in cache) for the many diners with up to a couple of
  /// hundred dishes (4, 16, 64, 256 slots: three moves instead of four on the way to 256).
  static let fourfoldBelow = 256

  /// Grows a user's table, or turns it into a direct array, then inserts a new pair. When the
  /// memory is refused the pair is dropped and `refusedBytes` says so (`build` throws).
  @usableFromInline @inline(never)
  mutating func insertGrowing(user: Int, _ pair: Pair) {
    let oldCapacity = users[user].capacity
    let old = users[user].table.assumingMemoryBound(to: Pair.self)
    let steps: UInt32 = oldCapacity < HistoryState.fourfoldBelow ? 2 : 1
    let capacity = oldCapacity << Int(steps)
    guard let region = reserve(capacity >= arrayUnits ? arrayUnits : capacity) else { return }
    if capacity >= arrayUnits {
      let cells = region.assumingMemoryBound(to: Cell.self)
      users[user].table = UnsafeMutableRawPointer(cells)
      users[user].shift = 0
      for j in 0..<oldCapacity where old[j].key != 0 { moveToArray(user: user, old[j], cells) }
      moveToArray(user: user, pair, cells)
    } else {
      let table = region.assumingMemoryBound(to: Pair.self)
      let shift = users[user].shift - steps
      let mask = capacity - 1
      for j in 0..<oldCapacity where old[j].key != 0 {
        var i = HistoryState.slot(Int32(bitPattern: old[j].key &- 1), shift)
        while table[i].key != 0 { i = HashMix.next(i, mask: mask) }
        table[i] = old[j]
      }
      var i = HistoryState.slot(Int32(bitPattern: pair.key &- 1), shift)
      while table[i].key != 0 { i = HashMix.next(i, mask: mask) }
      table[i] = pair
      users[user].table = UnsafeMutableRawPointer(table)
      users[user].shift = shift
    }
    freeRegions[oldCapacity.trailingZeroBitCount].append(UnsafeMutableRawPointer(old))
    users[user].count += 1
    pairCount += 1
  }

  /// Writes a table's pair into a direct array. A day without a cell code goes to the spill; so
  /// does "swiped, but only on the day `History.never`", which a cell could not tell from "never
  /// swiped".
  private mutating func moveToArray(user: Int, _ pair: Pair, _ cells: UnsafeMutablePointer<Cell>) {
    let item = Int32(bitPattern: pair.key &- 1)
    if spills.isEmpty {
      // The common case: no spills anywhere (so a count of 0 is 0) and days with codes.
      let right =
        pair.lastRight == History.never
        ? (pair.right == 0 ? 0 : HistoryState.spilled) : HistoryState.dayCode(pair.lastRight)
      let left =
        pair.lastLeft == History.never
        ? (pair.left == 0 ? 0 : HistoryState.spilled) : HistoryState.dayCode(pair.lastLeft)
      if right != HistoryState.spilled && left != HistoryState.spilled {
        cells[Int(item)] = Cell(
          right: pair.right, left: pair.left, lastRight: right, lastLeft: left)
        return
      }
    }
    let key = HistoryState.spillKey(user, item)
    func code(_ day: Int32, swiped: Bool, right: Bool) -> UInt16 {
      if day == History.never && !swiped { return 0 }
      let c = HistoryState.dayCode(day)
      if c == HistoryState.spilled {
        if right {
          spills[key, default: Spill()].lastRight = day
        } else {
          spills[key, default: Spill()].lastLeft = day
        }
      }
      return c
    }
    let s = spills[key]
    let swipedRight = pair.right != 0 || (s?.right ?? 0) != 0
    let swipedLeft = pair.left != 0 || (s?.left ?? 0) != 0
    cells[Int(item)] = Cell(
      right: pair.right, left: pair.left,
      lastRight: code(pair.lastRight, swiped: swipedRight, right: true),
      lastLeft: code(pair.lastLeft, swiped: swipedLeft, right: false))
  }
}
