// Placeholder driver while the benchmark grows.
let r = try DeckBench.run(users: 100_000, items: 500, eventsPerUser: 30)
print("decks: \(r.users) users x \(r.items) items, learn \(r.learnSeconds) s, build \(r.buildSeconds) s, write json +\(r.writeSeconds) s, cards \(r.cards), peak \(Clock.peakMemoryMiB()) MiB")
