import DeckCore

// The dish table of the bundled sample data set: home-style Japanese dinners and a few dishes
// from elsewhere. Allergens use the Japanese food-labelling names as lowercase words; a diet is
// listed only where the dish satisfies it (a vegan dish is also vegetarian, a vegetarian dish is
// also pescatarian, a gluten-free dish contains no wheat). Broths made with bonito or other fish
// stock list "fish"; dishes that are vegetarian or vegan use kombu and shiitake stock.

extension SampleData {
  /// The sample menu, in catalog order.
  package static let items: [MenuItem] =
    donburi + noodles + teishoku + curry + nabe + yoshoku
    + sides + soup + salad + dessert + world

  private static let vegan = ["vegetarian", "vegan", "pescatarian"]
  private static let vegetarian = ["vegetarian", "pescatarian"]
  private static let pescatarian = ["pescatarian"]
  private static let winter = (from: "2026-11-01", until: "2027-03-31")

  private static let donburi: [MenuItem] = [
    dish(
      "oyakodon", "Oyakodon (親子丼)", "donburi", ["chicken", "egg", "rice", "classic", "kids"], 880,
      allergens: ["egg", "wheat", "soy", "fish"]),
    dish(
      "gyudon", "Gyudon (牛丼)", "donburi", ["beef", "rice", "hearty", "classic"], 780,
      allergens: ["wheat", "soy"]),
    dish(
      "katsudon", "Katsudon (カツ丼)", "donburi", ["pork", "egg", "fried", "rice", "hearty"], 980,
      allergens: ["egg", "wheat", "soy", "fish"]),
    dish(
      "tendon", "Tendon (天丼)", "donburi", ["shrimp", "seafood", "fried", "rice"], 1080,
      allergens: ["shrimp", "egg", "wheat", "soy", "fish"], diets: pescatarian),
    dish(
      "kaisendon", "Kaisendon (海鮮丼)", "donburi", ["fish", "seafood", "raw", "rice", "light"], 1580,
      allergens: ["fish", "salmon", "shrimp", "squid", "wheat", "soy"], diets: pescatarian,
      weekdays: [.tuesday, .friday, .saturday]),
    dish(
      "sake-ikura-don", "Salmon, ikura oyako-don (鮭いくら親子丼)", "donburi",
      ["fish", "seafood", "rice", "seasonal"], 1480,
      allergens: ["salmon", "fish", "wheat", "soy"], diets: pescatarian,
      from: "2026-09-01", until: "2026-12-31"),
    dish(
      "butadon", "Butadon, Obihiro style (豚丼)", "donburi", ["pork", "grilled", "rice", "hearty"],
      880, allergens: ["wheat", "soy"]),
    dish(
      "mabo-don", "Mabo-don (麻婆丼)", "donburi", ["pork", "tofu", "spicy", "rice"], 850,
      allergens: ["wheat", "soy", "sesame"]),
    dish(
      "unadon", "Unadon (鰻丼)", "donburi", ["fish", "grilled", "rice", "premium"], 1680,
      allergens: ["fish", "wheat", "soy"], diets: pescatarian, weekdays: [.saturday, .sunday]),
    dish(
      "soboro-don", "Sanshoku soboro-don (三色丼)", "donburi", ["chicken", "egg", "rice", "kids"],
      780, allergens: ["egg", "wheat", "soy"]),
  ]

  private static let noodles: [MenuItem] = [
    dish(
      "zaru-soba", "Zaru soba (ざるそば)", "noodles", ["buckwheat", "cold", "light", "classic"], 780,
      allergens: ["buckwheat", "wheat", "soy", "fish"], diets: pescatarian),
    dish(
      "juwari-soba", "Juwari soba, 100% buckwheat, with tamari (十割そば)", "noodles",
      ["buckwheat", "cold", "light"], 1080, image: false,
      allergens: ["buckwheat", "soy", "fish"], diets: ["pescatarian", "gluten-free"]),
    dish(
      "kitsune-udon", "Kitsune udon (きつねうどん)", "noodles", ["tofu", "warm", "light", "kids"], 680,
      allergens: ["wheat", "soy", "fish"], diets: pescatarian),
    dish(
      "tempura-soba", "Tempura soba, \"kakiage\" style (かき揚げそば)", "noodles",
      ["buckwheat", "shrimp", "fried", "warm"], 980,
      allergens: ["buckwheat", "wheat", "egg", "shrimp", "soy", "fish"], diets: pescatarian),
    dish(
      "shoyu-ramen", "Shoyu ramen (醤油ラーメン)", "noodles", ["pork", "warm", "classic"], 850,
      allergens: ["wheat", "egg", "soy"]),
    dish(
      "tonkotsu-ramen", "Tonkotsu ramen (豚骨ラーメン)", "noodles", ["pork", "warm", "hearty"], 950,
      allergens: ["wheat", "egg", "soy", "sesame"], weekdays: [.friday, .saturday]),
    dish(
      "miso-ramen", "Sapporo miso ramen (味噌ラーメン)", "noodles", ["pork", "warm", "hearty"], 980,
      allergens: ["wheat", "milk", "soy", "sesame"]),
    dish(
      "yaki-udon", "Yaki udon (焼うどん)", "noodles", ["pork", "vegetable", "stir-fried"], 780,
      allergens: ["wheat", "soy", "fish"]),
    dish(
      "hiyashi-chuka", "Hiyashi chuka (冷やし中華)", "noodles", ["pork", "egg", "cold", "seasonal"],
      880, allergens: ["wheat", "egg", "soy", "sesame"], from: "2026-06-01", until: "2026-09-15"),
    dish(
      "nabeyaki-udon", "Nabeyaki udon (鍋焼きうどん)", "noodles",
      ["chicken", "shrimp", "egg", "warm", "seasonal"], 1180,
      allergens: ["wheat", "egg", "shrimp", "soy", "fish"], from: winter.from, until: "2027-03-15"),
    dish(
      "shojin-udon", "Shojin kake udon, kombu broth (精進うどん)", "noodles",
      ["vegetable", "warm", "light"], 640, allergens: ["wheat", "soy"], diets: vegan),
    dish(
      "yakisoba", "Yakisoba (焼きそば)", "noodles", ["pork", "vegetable", "stir-fried", "kids"], 750,
      allergens: ["wheat", "soy", "apple"]),
  ]

  private static let teishoku: [MenuItem] = [
    dish(
      "saba-misoni", "Saba misoni teishoku (鯖の味噌煮定食)", "teishoku",
      ["fish", "simmered", "classic"], 1080, allergens: ["mackerel", "fish", "wheat", "soy"],
      diets: pescatarian, weekdays: [.wednesday, .friday]),
    dish(
      "saba-shioyaki", "Saba shioyaki teishoku (鯖の塩焼き定食)", "teishoku",
      ["fish", "grilled", "light"], 980, allergens: ["mackerel", "fish", "soy"],
      diets: ["pescatarian", "gluten-free"]),
    dish(
      "sanma-shioyaki", "Sanma shioyaki teishoku (秋刀魚の塩焼き定食)", "teishoku",
      ["fish", "grilled", "seasonal"], 1180, allergens: ["fish", "soy"],
      diets: ["pescatarian", "gluten-free"], from: "2026-09-01", until: "2026-11-15"),
    dish(
      "shogayaki", "Buta no shogayaki teishoku (豚の生姜焼き定食)", "teishoku",
      ["pork", "grilled", "hearty", "classic"], 980, allergens: ["wheat", "soy"]),
    dish(
      "karaage-teishoku", "Karaage teishoku (唐揚げ定食)", "teishoku",
      ["chicken", "fried", "hearty", "kids"], 950, allergens: ["wheat", "soy"]),
    dish(
      "tonkatsu-teishoku", "Tonkatsu teishoku (とんかつ定食)", "teishoku",
      ["pork", "fried", "hearty"], 1280, allergens: ["wheat", "egg", "milk", "soy", "apple"]),
    dish(
      "salmon-shioyaki", "Salmon shioyaki teishoku (鮭の塩焼き定食)", "teishoku",
      ["fish", "grilled", "light"], 1080, allergens: ["salmon", "fish", "soy"],
      diets: ["pescatarian", "gluten-free"]),
    dish(
      "nikujaga", "Nikujaga (肉じゃが)", "teishoku", ["beef", "simmered", "classic"], 880,
      allergens: ["wheat", "soy"]),
    dish(
      "sashimi-moriawase", "Sashimi moriawase, market price (刺身盛り合わせ)", "teishoku",
      ["fish", "seafood", "raw", "premium"], nil,
      allergens: ["fish", "salmon", "squid", "shrimp", "wheat", "soy"], diets: pescatarian,
      weekdays: [.tuesday, .friday, .saturday]),
    dish(
      "tofu-steak", "Tofu steak teishoku (豆腐ステーキ定食)", "teishoku",
      ["tofu", "vegetable", "grilled", "light"], 880, allergens: ["soy", "wheat", "sesame"],
      diets: vegan),
    dish(
      "kaki-fry", "Kaki fry teishoku (カキフライ定食)", "teishoku",
      ["seafood", "fried", "seasonal"], 1380, allergens: ["wheat", "egg", "milk"],
      diets: pescatarian, from: winter.from, until: "2027-03-15"),
    dish(
      "gyoza-teishoku", "Gyoza teishoku (餃子定食)", "teishoku", ["pork", "hearty", "kids"], 850,
      allergens: ["wheat", "soy", "sesame"]),
    dish(
      "shio-koji-chicken", "Shio-koji grilled chicken teishoku (鶏の塩麹焼き定食)", "teishoku",
      ["chicken", "grilled", "light"], 980, diets: ["gluten-free"]),
    dish(
      "gyutan", "Gyutan shioyaki teishoku (牛タン塩焼き定食)", "teishoku",
      ["beef", "grilled", "premium"], 1580, allergens: ["soy"], diets: ["gluten-free"]),
  ]

  private static let curry: [MenuItem] = [
    dish(
      "katsu-curry", "Katsu curry (カツカレー)", "curry", ["pork", "fried", "hearty"], 1080,
      allergens: ["wheat", "egg", "milk", "soy", "apple"]),
    dish(
      "beef-curry", "Beef curry (ビーフカレー)", "curry", ["beef", "classic", "kids"], 880,
      allergens: ["wheat", "milk", "soy", "apple"]),
    dish(
      "kaigun-curry", "Kaigun curry, Friday navy style (海軍カレー)", "curry",
      ["beef", "classic", "hearty"], 980, allergens: ["wheat", "milk", "soy"],
      weekdays: [.friday]),
    dish(
      "chefs-special-curry", "Chef's \"special\" curry, extra hot", "curry",
      ["beef", "spicy", "hearty"], 1280, allergens: ["wheat", "milk", "soy", "sesame", "peanut"]),
    dish(
      "vegetable-curry", "Vegetable curry, vegan roux (野菜カレー)", "curry",
      ["vegetable", "kids"], 880, allergens: ["wheat", "soy"], diets: vegan),
    dish(
      "keema-curry", "Keema curry with soft egg (キーマカレー)", "curry", ["pork", "egg", "spicy"],
      950, allergens: ["wheat", "egg", "milk", "soy"]),
    dish(
      "soup-curry", "Sapporo soup curry (スープカレー)", "curry",
      ["chicken", "vegetable", "spicy", "warm"], 1280, allergens: ["soy", "sesame"],
      diets: ["gluten-free"]),
    dish(
      "curry-udon", "Curry udon (カレーうどん)", "curry", ["beef", "warm", "spicy"], 880,
      allergens: ["wheat", "milk", "soy", "fish"]),
  ]

  private static let nabe: [MenuItem] = [
    dish(
      "sukiyaki", "Sukiyaki (すき焼き)", "nabe", ["beef", "egg", "warm", "premium"], 1680,
      allergens: ["egg", "wheat", "soy"], weekdays: [.saturday, .sunday]),
    dish(
      "buta-shabu", "Pork shabu-shabu with ponzu (豚しゃぶ鍋)", "nabe", ["pork", "warm", "light"],
      1480, allergens: ["wheat", "soy", "sesame", "fish"],
      weekdays: [.friday, .saturday, .sunday]),
    dish(
      "yosenabe", "Yosenabe (寄せ鍋)", "nabe", ["chicken", "seafood", "warm", "seasonal"], 1380,
      allergens: ["fish", "shrimp", "crab", "wheat", "soy"], from: "2026-10-15",
      until: winter.until),
    dish(
      "kimchi-nabe", "Kimchi nabe (キムチ鍋)", "nabe", ["pork", "tofu", "spicy", "warm"], 1280,
      allergens: ["wheat", "soy", "sesame", "shrimp", "fish"], from: "2026-10-15",
      until: winter.until),
    dish(
      "mizutaki", "Mizutaki, Hakata chicken hot pot (水炊き)", "nabe", ["chicken", "warm", "light"],
      1380, allergens: ["wheat", "soy"], weekdays: [.saturday, .sunday]),
    dish(
      "yudofu", "Yudofu (湯豆腐)", "nabe", ["tofu", "warm", "light", "seasonal"], 880,
      allergens: ["soy", "wheat"], diets: vegan, from: winter.from, until: winter.until),
    dish(
      "oden", "Oden \"Grandma's pot\", eight pieces (おでん)", "nabe",
      ["fish", "egg", "simmered", "warm", "seasonal"], 980,
      allergens: ["egg", "wheat", "soy", "fish"], from: winter.from, until: winter.until),
    dish(
      "ishikari-nabe", "Ishikari nabe, salmon and miso (石狩鍋)", "nabe",
      ["fish", "warm", "seasonal"], 1380, allergens: ["salmon", "fish", "soy"],
      diets: ["pescatarian", "gluten-free"], from: winter.from, until: winter.until),
    dish(
      "chanko-nabe", "Chanko nabe (ちゃんこ鍋)", "nabe", ["chicken", "warm", "hearty"], 1480,
      allergens: ["wheat", "soy", "fish"], weekdays: [.sunday]),
  ]

  private static let yoshoku: [MenuItem] = [
    dish(
      "hamburg-steak", "Hamburg steak with demi-glace (ハンバーグ)", "yoshoku",
      ["beef", "pork", "hearty", "kids"], 1080, allergens: ["egg", "milk", "wheat", "soy"]),
    dish(
      "omurice", "Omurice, \"kissaten\" style (オムライス)", "yoshoku", ["chicken", "egg", "kids"],
      950, allergens: ["egg", "milk", "wheat"]),
    dish(
      "ebi-fry", "Ebi fry (エビフライ)", "yoshoku", ["shrimp", "seafood", "fried", "kids"], 1180,
      allergens: ["shrimp", "egg", "wheat", "milk"], diets: pescatarian),
    dish(
      "crab-croquette", "Crab cream croquettes (カニクリームコロッケ)", "yoshoku",
      ["seafood", "fried", "warm"], 980, allergens: ["crab", "milk", "wheat", "egg"],
      diets: pescatarian),
    dish(
      "napolitan", "Spaghetti Napolitan (ナポリタン)", "yoshoku", ["pork", "classic", "kids"], 850,
      allergens: ["wheat", "milk", "soy"]),
    dish(
      "ebi-doria", "Shrimp doria (海老ドリア)", "yoshoku", ["shrimp", "seafood", "baked", "warm"],
      1080, allergens: ["shrimp", "milk", "wheat"], diets: pescatarian),
    dish(
      "hayashi-rice", "Hayashi rice (ハヤシライス)", "yoshoku", ["beef", "rice", "classic"], 950,
      allergens: ["wheat", "milk", "soy", "apple"]),
    dish(
      "menchi-katsu", "Menchi katsu (メンチカツ)", "yoshoku", ["beef", "pork", "fried"], 880,
      image: false, allergens: ["wheat", "egg", "milk", "soy"]),
    dish(
      "chicken-nanban", "Chicken nanban with tartar sauce (チキン南蛮)", "yoshoku",
      ["chicken", "fried", "hearty"], 980, allergens: ["egg", "wheat", "soy"]),
  ]

  private static let sides: [MenuItem] = [
    dish(
      "edamame", "Edamame (枝豆)", "sides", ["vegetable", "light", "kids"], 380,
      allergens: ["soy"], diets: vegan + ["gluten-free", "halal"]),
    dish(
      "hiyayakko", "Hiyayakko with ginger and scallion (冷奴)", "sides", ["tofu", "cold", "light"],
      380, allergens: ["soy", "wheat"], diets: vegan),
    dish(
      "agedashi-tofu", "Agedashi tofu (揚げ出し豆腐)", "sides", ["tofu", "fried", "warm"], 480,
      allergens: ["soy", "wheat", "fish"], diets: pescatarian),
    dish(
      "kinpira-gobo", "Kinpira gobo (きんぴらごぼう)", "sides", ["vegetable", "classic"], 380,
      allergens: ["soy", "wheat", "sesame"], diets: vegan),
    dish(
      "vegetable-gyoza", "Vegetable gyoza, six pieces (野菜餃子)", "sides", ["vegetable", "kids"],
      480, allergens: ["wheat", "soy", "sesame"], diets: vegan),
    dish(
      "chawanmushi", "Chawanmushi (茶碗蒸し)", "sides", ["egg", "shrimp", "warm", "light"], 480,
      allergens: ["egg", "shrimp", "fish", "soy", "wheat"], diets: pescatarian),
    dish(
      "tamagoyaki", "Dashimaki tamagoyaki (だし巻き卵)", "sides", ["egg", "kids"], 420,
      allergens: ["egg", "fish", "soy", "wheat"], diets: pescatarian),
    dish(
      "yaki-onigiri", "Yaki onigiri, two pieces (焼きおにぎり)", "sides", ["rice", "grilled"], 380,
      allergens: ["soy", "wheat"], diets: vegan),
    dish(
      "shio-onigiri", "Shio musubi (塩むすび)", "sides", ["rice", "light", "kids"], 280,
      image: false, diets: vegan + ["gluten-free", "halal"]),
    dish(
      "kabocha-nimono", "Kabocha no nimono (かぼちゃの煮物)", "sides",
      ["vegetable", "simmered", "sweet"], 420, allergens: ["soy", "wheat"], diets: vegan),
    dish(
      "kinoko-gohan", "Kinoko takikomi gohan (きのこの炊き込みご飯)", "sides",
      ["rice", "mushroom", "seasonal"], 480, allergens: ["soy", "wheat", "fish"],
      diets: pescatarian, from: "2026-09-15", until: "2026-11-30"),
    dish(
      "inari-sushi", "Inari sushi, three pieces (いなり寿司)", "sides", ["tofu", "rice", "sweet"],
      420, allergens: ["soy", "wheat", "sesame"], diets: vegan),
    dish(
      "nasu-dengaku", "Nasu dengaku, miso-glazed aubergine (茄子田楽)", "sides",
      ["vegetable", "grilled", "sweet"], 480, allergens: ["soy", "sesame"],
      diets: vegan + ["gluten-free"]),
    dish(
      "ume-okayu", "Ume okayu, rice porridge with pickled plum (梅がゆ)", "sides",
      ["rice", "warm", "light"], 380, diets: vegan + ["gluten-free", "halal"]),
    dish(
      "yakitori-shio", "Yakitori with salt, five skewers (焼き鳥 塩)", "sides",
      ["chicken", "grilled"], 680, diets: ["gluten-free"]),
  ]

  private static let soup: [MenuItem] = [
    dish(
      "miso-soup", "Miso soup with tofu and wakame (味噌汁)", "soup", ["tofu", "warm", "light"],
      180, allergens: ["soy", "fish"], diets: ["pescatarian", "gluten-free"]),
    dish(
      "tonjiru", "Tonjiru (豚汁)", "soup", ["pork", "vegetable", "warm", "hearty"], 380,
      allergens: ["soy"], diets: ["gluten-free"]),
    dish(
      "kenchin-jiru", "Kenchin-jiru (けんちん汁)", "soup", ["tofu", "vegetable", "warm"], 380,
      allergens: ["soy", "wheat", "sesame"], diets: vegan),
    dish(
      "asari-miso", "Asari clam miso soup (あさりの味噌汁)", "soup", ["seafood", "warm", "light"],
      350, allergens: ["soy"], diets: ["pescatarian", "gluten-free"]),
    dish(
      "kasujiru", "Kasujiru, sake-lees soup with salmon (粕汁)", "soup",
      ["fish", "warm", "seasonal"], 450, allergens: ["salmon", "fish", "soy"],
      diets: ["pescatarian", "gluten-free"], from: "2026-12-01", until: "2027-02-28"),
    dish(
      "corn-potage", "Corn potage (コーンポタージュ)", "soup", ["warm", "sweet", "kids"], 380,
      allergens: ["milk", "wheat"], diets: vegetarian),
  ]

  private static let salad: [MenuItem] = [
    dish(
      "potato-salad", "Potato salad (ポテトサラダ)", "salad", ["vegetable", "egg", "kids"], 380,
      allergens: ["egg", "soy"], diets: vegetarian + ["gluten-free"]),
    dish(
      "sunomono", "Wakame and cucumber sunomono (酢の物)", "salad", ["vegetable", "cold", "light"],
      380, allergens: ["soy", "wheat", "sesame"], diets: vegan),
    dish(
      "daikon-salad", "Daikon salad with ume dressing (大根サラダ)", "salad",
      ["vegetable", "cold", "light"], 480, diets: vegan + ["gluten-free"]),
    dish(
      "tofu-salad", "Tofu and sesame salad (豆腐サラダ)", "salad", ["tofu", "vegetable", "light"],
      580, allergens: ["soy", "sesame", "wheat"], diets: vegan),
    dish(
      "goma-ae", "Spinach goma-ae (ほうれん草の胡麻和え)", "salad", ["vegetable", "classic"], 380,
      allergens: ["sesame", "soy", "wheat"], diets: vegan),
    dish(
      "shiraae", "Shiraae, tofu-dressed greens (白和え)", "salad", ["tofu", "vegetable", "light"],
      420, allergens: ["soy", "sesame"], diets: vegan + ["gluten-free"]),
    dish(
      "shabu-salad", "Cold pork shabu salad with ponzu (冷しゃぶサラダ)", "salad",
      ["pork", "cold", "light"], 780, allergens: ["soy", "wheat", "sesame"]),
    dish(
      "tomato-salad", "Tomato and onion salad (トマトサラダ)", "salad",
      ["vegetable", "cold", "light"], 420, diets: vegan + ["gluten-free", "halal"]),
  ]

  private static let dessert: [MenuItem] = [
    dish(
      "purin", "Custard purin (プリン)", "dessert", ["sweet", "kids"], 380,
      allergens: ["egg", "milk"], diets: vegetarian + ["gluten-free"]),
    dish(
      "matcha-ice", "Matcha ice cream (抹茶アイス)", "dessert", ["sweet", "cold"], 380,
      allergens: ["milk", "egg"], diets: vegetarian + ["gluten-free"]),
    dish(
      "warabi-mochi", "Warabi mochi with kinako (わらび餅)", "dessert", ["sweet", "light"], 420,
      allergens: ["soy"], diets: vegan + ["gluten-free"]),
    dish(
      "anmitsu", "Anmitsu (あんみつ)", "dessert", ["sweet", "fruit", "light"], 480,
      allergens: ["peach", "orange"], diets: vegan + ["gluten-free"]),
    dish(
      "dorayaki", "Dorayaki (どら焼き)", "dessert", ["sweet", "kids"], 320,
      allergens: ["egg", "wheat", "milk", "soy"], diets: vegetarian),
    dish(
      "taiyaki", "Taiyaki (たい焼き)", "dessert", ["sweet", "warm", "seasonal"], 280,
      allergens: ["wheat", "egg", "milk", "soy"], diets: vegetarian, from: "2026-10-01",
      until: winter.until),
    dish(
      "daigaku-imo", "Daigaku imo (大学芋)", "dessert", ["sweet", "vegetable"], 380,
      allergens: ["sesame", "soy", "wheat"], diets: vegan),
    dish(
      "yaki-imo", "Yaki imo, stone-roasted sweet potato (焼き芋)", "dessert",
      ["sweet", "warm", "seasonal"], 380, diets: vegan + ["gluten-free", "halal"],
      from: winter.from, until: "2027-02-28"),
    dish(
      "strawberry-shortcake", "Strawberry shortcake (いちごのショートケーキ)", "dessert",
      ["sweet", "fruit", "seasonal"], 480, allergens: ["egg", "milk", "wheat"], diets: vegetarian,
      from: "2026-12-01", until: "2026-12-25"),
    dish(
      "kakigori", "Kakigori, strawberry and condensed milk (かき氷)", "dessert",
      ["sweet", "cold", "seasonal"], 480, allergens: ["milk"], diets: vegetarian + ["gluten-free"],
      from: "2026-06-15", until: "2026-09-15"),
    dish(
      "basque-cheesecake", "Basque cheesecake (バスクチーズケーキ)", "dessert", ["sweet"], 520,
      image: false, allergens: ["egg", "milk", "wheat"], diets: vegetarian),
  ]

  private static let world: [MenuItem] = [
    dish(
      "chicken-biryani", "Chicken biryani", "world", ["chicken", "rice", "spicy"], 1180,
      allergens: ["milk", "cashew"], diets: ["gluten-free", "halal"]),
    dish(
      "falafel-wrap", "Falafel wrap with hummus", "world", ["vegetable", "light"], 880,
      allergens: ["wheat", "sesame"], diets: vegan + ["halal"]),
    dish(
      "pad-thai", "Pad thai with shrimp", "world", ["shrimp", "seafood", "spicy"], 1080,
      allergens: ["shrimp", "peanut", "egg", "fish", "soy"], diets: ["pescatarian", "gluten-free"]),
    dish(
      "bibimbap", "Dolsot bibimbap (石焼ビビンバ)", "world", ["beef", "egg", "rice", "spicy"], 1180,
      allergens: ["egg", "wheat", "soy", "sesame"]),
    dish(
      "green-curry", "Thai green curry with chicken", "world", ["chicken", "spicy", "warm"], 1080,
      allergens: ["fish", "shrimp"], diets: ["gluten-free"]),
    dish(
      "margherita", "Margherita pizza", "world", ["vegetable", "baked", "kids"], 1280,
      allergens: ["wheat", "milk"], diets: vegetarian),
    dish(
      "ebi-chili", "Ebi chili (エビチリ)", "world", ["shrimp", "seafood", "spicy"], 1180,
      allergens: ["shrimp", "egg", "wheat", "soy"], diets: pescatarian),
  ]

  /// One table row. The image defaults to `<id>.jpg`; dates are `YYYY-MM-DD` literals.
  private static func dish(
    _ id: String, _ name: String, _ category: String, _ tags: [String], _ price: Int?,
    image: Bool = true, allergens: [String] = [], diets: [String] = [],
    weekdays: Set<Weekday>? = nil, from: String? = nil, until: String? = nil
  ) -> MenuItem {
    MenuItem(
      id: id, name: name, category: category, tags: tags, price: price.map(Double.init),
      image: image ? id + ".jpg" : nil, allergens: allergens, diets: diets,
      availability: Availability(
        weekdays: weekdays, from: from.map { DeckDate.parse($0)! },
        until: until.map { DeckDate.parse($0)! }))
  }
}
