import DeckCore
