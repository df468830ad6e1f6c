// Blackjack: gymnasium 1.4's BlackjackEnv (natural, sab). The observation
// (player sum, dealer's showing card, usable ace) is one int32 row of 3, as
// in EnvPool: gymnasium's Tuple(Discrete(32), Discrete(11), Discrete(2)) in
// order.
#ifndef ENVPOOL_TOY_TEXT_BLACKJACK_H_
#define ENVPOOL_TOY_TEXT_BLACKJACK_H_

#include <array>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpp/draw/canvas.h"
#include "cpp/toy_text/common.h"

namespace envpool::toy_text {

using draw::Canvas;
using draw::LoadImage;
using draw::Rows;

class Blackjack : public ToyTextEnv {
 public:
  // 1 = ace, 2-10, and the jack, queen and king at 10: np_random.choice(deck).
  static constexpr int kDeck[13] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10};

  static Config Defaults() {
    return {{"max_episode_steps", int64_t{0}},
            {"natural", false},
            {"sab", false},
            {"report_draws", false},
            {"img_dir", std::string("")}};
  }
  struct Spec : EnvSpec {
    StateKey<int32_t> obs = AddState<int32_t>("obs", {3}, {0, 0, 0}, {31, 10, 1});
    ActionKey<int32_t> action = AddAction<int32_t>("action", {}, {0}, {1});
    DrawKeys draws;
    explicit Spec(const Config& c) : draws(AddDrawKeys(*this, c)) {}
  };
  static EnvSpec MakeSpec(const Config& c) { return Spec(c); }

  explicit Blackjack(const Config& c)
      : spec_(c), natural_(c.Get<bool>("natural")), sab_(c.Get<bool>("sab")), img_dir_(c.Get<std::string>("img_dir")) {
    player_.reserve(32);
    dealer_.reserve(32);
  }

  void Reset(const StateRow& out) override {
    ClearDraws();
    dealer_ = {Card(), Card()};
    player_ = {Card(), Card()};
    // The face-up card's look, for the frames: a suit, and J, Q or K for a 10.
    suit_ = Choice(4);
    face_ = dealer_[0] == 10 ? Choice(3) : -1;
    Write(out);
  }

  StepResult Step(const ActionRow& action, const StateRow& out) override {
    ClearDraws();
    StepResult r;
    if (action[spec_.action][0] != 0) {  // hit
      player_.push_back(Card());
      if (Sum(player_) > 21) {
        r.terminated = true;
        r.reward = -1.0;
      }
    } else {  // stick: the dealer plays out the hand
      r.terminated = true;
      while (Sum(dealer_) < 17) dealer_.push_back(Card());
      const int p = Score(player_), d = Score(dealer_);
      r.reward = static_cast<double>(p > d) - static_cast<double>(p < d);
      if (sab_ && Natural(player_) && !Natural(dealer_))
        r.reward = 1.0;
      else if (!sab_ && natural_ && Natural(player_) && r.reward == 1.0)
        r.reward = 1.5;
    }
    Write(out);
    return r;
  }

  static constexpr int kWidth = 384, kHeight = 376;
  std::array<int, 2> RenderSize() const override { return {kHeight, kWidth}; }
  void Render(uint8_t* rgb) override;

 private:
  int Card() { return kDeck[Choice(13)]; }

  static bool UsableAce(const std::vector<int>& hand) {
    int s = 0;
    bool ace = false;
    for (int c : hand) s += c, ace = ace || c == 1;
    return ace && s + 10 <= 21;
  }
  static int Sum(const std::vector<int>& hand) {
    int s = 0;
    for (int c : hand) s += c;
    return UsableAce(hand) ? s + 10 : s;
  }
  static int Score(const std::vector<int>& hand) { return Sum(hand) > 21 ? 0 : Sum(hand); }
  static bool Natural(const std::vector<int>& hand) {
    return hand.size() == 2 && ((hand[0] == 1 && hand[1] == 10) || (hand[0] == 10 && hand[1] == 1));
  }

  void Write(const StateRow& out) {
    int32_t* o = out[spec_.obs];
    o[0] = Sum(player_);
    o[1] = dealer_[0];
    o[2] = UsableAce(player_);
    WriteDraws(out, spec_.draws);
  }

  Spec spec_;
  bool natural_, sab_;
  std::string img_dir_;
  std::vector<int> player_, dealer_;
  int suit_ = 0, face_ = -1;
};

// gymnasium's draw_table (rgb_array): 4x pixel art at fixed positions.
inline void Blackjack::Render(uint8_t* rgb) {
  if (dealer_.empty()) throw std::runtime_error("Blackjack render: no hand dealt yet (reset the env first)");
  if (img_dir_.empty()) throw std::runtime_error("Blackjack render: no img_dir (gymnasium's toy_text/img folder)");
  auto load = [&](const std::string& name) { return LoadImage(img_dir_ + "/blackjack/" + name + ".png"); };
  Canvas cv(rgb, kWidth, kHeight, Rows::kAsDrawn);
  auto digits = [&](int number, const char* size, int gap, int x, int y) {
    for (char d : std::to_string(number)) {
      auto img = load(std::string("digit_") + size + "_" + d);
      cv.Blit(*img, x, y);
      x += img->w + gap;
    }
  };
  auto centred_x = [](int width) { return (kWidth - width) / 2 / 4 * 4; };
  cv.Fill({196, 216, 158});
  auto dealer_label = load("label_dealer");
  cv.Blit(*dealer_label, 40, 32);
  digits(dealer_[0], "small", 4, 40 + dealer_label->w + 12, 32);
  static const char kSuits[4] = {'C', 'D', 'H', 'S'};
  static const char kFaces[3] = {'J', 'Q', 'K'};
  const int value = dealer_[0];
  const std::string card = (value == 1    ? std::string("A")
                            : value == 10 ? std::string(1, kFaces[face_])
                                          : std::to_string(value)) +
                           kSuits[suit_];
  cv.Blit(*load("card_" + card), 96, 72);
  cv.Blit(*load("card_back"), 208, 72);
  cv.Blit(*load("label_player"), 40, 208);
  const std::string sum = std::to_string(Sum(player_));
  const int digit_w = load("digit_big_0")->w;
  const int sum_w = static_cast<int>(sum.size()) * digit_w + (static_cast<int>(sum.size()) - 1) * 12;
  digits(Sum(player_), "big", 12, centred_x(sum_w), 248);
  if (UsableAce(player_)) {
    auto label = load("label_usable_ace");
    cv.Blit(*label, centred_x(label->w), 328);
  }
}

}  // namespace envpool::toy_text

#endif  // ENVPOOL_TOY_TEXT_BLACKJACK_H_
