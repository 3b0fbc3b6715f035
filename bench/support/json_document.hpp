#pragma once
// A realistic API document for the JSON benchmarks: a page of users with
// addresses, tags, free-text bios (quotes, newlines, tabs, backslashes, non-ASCII)
// and orders with line items and prices. Deterministic, about 60 KB as JSON.

#include <stet/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bench_json {

struct address {
  std::string street;
  std::string city;
  std::string country;
  std::string postcode;
  double lat = 0;
  double lng = 0;
};

struct line_item {
  std::string sku;
  std::string title;
  int quantity = 0;
  double unit_price = 0;
};

struct order {
  std::int64_t id = 0;
  std::string status;
  double total = 0;
  std::vector<line_item> items;
};

struct user {
  std::int64_t id = 0;
  std::string name;
  std::string email;
  bool active = false;
  double score = 0;
  std::optional<std::string> nickname;
  std::vector<std::string> tags;
  address home;
  std::string bio;
  std::vector<order> orders;
};

struct document {
  int page = 0;
  int per_page = 0;
  std::int64_t total = 0;
  std::string generated_at;
  std::vector<user> users;
};

inline void to_json(stet::json::writer& w, const address& a) {
  w.begin_object()
      .member("street", a.street)
      .member("city", a.city)
      .member("country", a.country)
      .member("postcode", a.postcode)
      .member("lat", a.lat)
      .member("lng", a.lng)
      .end_object();
}

inline void to_json(stet::json::writer& w, const line_item& i) {
  w.begin_object()
      .member("sku", i.sku)
      .member("title", i.title)
      .member("quantity", i.quantity)
      .member("unit_price", i.unit_price)
      .end_object();
}

inline void to_json(stet::json::writer& w, const order& o) {
  w.begin_object().member("id", o.id).member("status", o.status).member("total", o.total);
  w.member("items", o.items).end_object();
}

inline void to_json(stet::json::writer& w, const user& u) {
  w.begin_object()
      .member("id", u.id)
      .member("name", u.name)
      .member("email", u.email)
      .member("active", u.active)
      .member("score", u.score)
      .member("nickname", u.nickname)
      .member("tags", u.tags)
      .member("address", u.home)
      .member("bio", u.bio)
      .member("orders", u.orders)
      .end_object();
}

inline void to_json(stet::json::writer& w, const document& d) {
  w.begin_object()
      .member("page", d.page)
      .member("per_page", d.per_page)
      .member("total", d.total)
      .member("generated_at", d.generated_at)
      .member("users", d.users)
      .end_object();
}

// A small linear congruential generator: the same document on every machine.
class lcg {
 public:
  std::uint32_t next() noexcept {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::uint32_t>(state_ >> 33);
  }
  std::size_t below(std::size_t n) noexcept { return next() % n; }
  double unit() noexcept { return next() / 2147483648.0; }

 private:
  std::uint64_t state_ = 42;
};

inline document make_document(std::size_t users) {
  static const char* const first[] = {"Ada",  "Bjørn", "Chloé",     "Dmitri", "Émile", "Fatima", "Grace",     "Hiroshi",
                                      "Inés", "José",  "Katarzyna", "Liam",   "Mei",   "Noah",   "Olúwaseun", "Priya"};
  static const char* const last[] = {"Lovelace", "O'Brien",    "Müller", "Nakamura", "Novák",
                                     "Smith",    "Østergaard", "García", "Kowalski", "Zhang"};
  static const char* const cities[] = {"München", "São Paulo", "Zürich", "Kraków", "Reykjavík", "Lisbon", "Tokyo"};
  static const char* const tags[] = {"admin", "beta", "vip", "newsletter", "early-adopter", "support", "dev"};
  static const char* const bios[] = {
      "Loves \"quoted\" text,\nnewlines\tand tabs.", "Path: C:\\Users\\me\\stet — em dash, café, 数据, 🎉",
      "Plain biography without anything special in it at all, just words and more words.",
      "Says: \"stet\" means \"let it stand\".\r\nSecond line.",
      "Control \x01 and \x1f bytes sneak in from legacy imports sometimes."};
  static const char* const titles[] = {"USB-C cable (2 m)", "Coffee beans \"Ethiopia\" 1 kg", "Notebook, A5, dotted",
                                       "Desk lamp — warm white", "Keyboard DE/CH layout"};
  static const char* const statuses[] = {"pending", "paid", "shipped", "delivered", "refunded"};

  lcg rng;
  document d{.page = 3,
             .per_page = static_cast<int>(users),
             .total = 1234,
             .generated_at = "2024-05-01T12:34:56Z",
             .users = {}};
  for (std::size_t u = 0; u < users; ++u) {
    user x;
    x.id = static_cast<std::int64_t>(100000 + u * 37);
    x.name = std::string(first[rng.below(16)]) + " " + last[rng.below(10)];
    x.email = "user" + std::to_string(u) + "@example.com";
    x.active = rng.below(3) != 0;
    x.score = rng.unit() * 100;
    if (rng.below(2) == 0) x.nickname = "nick_" + std::to_string(rng.below(1000));
    for (std::size_t t = rng.below(4); t > 0; --t) x.tags.push_back(tags[rng.below(7)]);
    x.home = {std::to_string(1 + rng.below(200)) + " Main Street",
              cities[rng.below(7)],
              "XX",
              std::to_string(10000 + rng.below(89999)),
              -90 + rng.unit() * 180,
              -180 + rng.unit() * 360};
    x.bio = bios[rng.below(5)];
    for (std::size_t o = 1 + rng.below(3); o > 0; --o) {
      order ord{static_cast<std::int64_t>(rng.next()), statuses[rng.below(5)], 0, {}};
      for (std::size_t i = 1 + rng.below(4); i > 0; --i) {
        line_item item{"SKU-" + std::to_string(rng.below(100000)), titles[rng.below(5)],
                       static_cast<int>(1 + rng.below(5)), static_cast<double>(rng.below(10000)) / 100};
        ord.total += item.quantity * item.unit_price;
        ord.items.push_back(std::move(item));
      }
      x.orders.push_back(std::move(ord));
    }
    d.users.push_back(std::move(x));
  }
  return d;
}

}  // namespace bench_json
