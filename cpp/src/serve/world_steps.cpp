#include <coupler/serve/world_steps.hpp>

#include <algorithm>
#include <atomic>
#include <string>

#include <coupler/wire/error.hpp>

namespace coupler {

WorldSteps::WorldSteps(std::vector<World> worlds, std::size_t object_count, std::size_t data_width,
                       std::size_t threads, MujocoFunctions::Stage after_step)
    : worlds_(std::move(worlds)),
      data_width_(data_width),
      every_object_(object_count, 1),
      after_step_(after_step),
      pool_(std::max<std::size_t>(1, std::min(threads, worlds_.size()))) {
  if (worlds_.empty()) throw Error("a batch of worlds needs at least one world");
  const World& first = worlds_.front();
  if (!first.scatter || !first.gather) throw Error("every world needs its scatter and gather");
  value_count_ = first.scatter->value_count();
  event_count_ = first.scatter->event_count();
  sensor_width_ = first.gather->size();
  every_event_.assign(event_count_, 1);
  for (std::size_t i = 0; i < worlds_.size(); ++i) {
    const World& w = worlds_[i];
    const bool fits = w.stepper && w.scatter && w.gather && w.model && w.data &&
                      w.scatter->value_count() == value_count_ && w.scatter->event_count() == event_count_ &&
                      w.scatter->object_count() == object_count && w.gather->size() == sensor_width_ &&
                      (w.data_gather ? w.data_gather->size() == data_width_ : data_width_ == 0);
    if (!fits) throw Error("world " + std::to_string(i) + "'s parts do not fit the batch");
  }
}

bool WorldSteps::refuses(const double* values) const noexcept {
  for (std::size_t i = 0; i < worlds_.size(); ++i) {
    if (worlds_[i].scatter->refuses(values + i * value_count_, every_object_.data())) return true;
  }
  return false;
}

void WorldSteps::check(const double* values, const std::uint8_t* reset) const {
  // Only the rare refused Control builds the worlds' texts.
  if (!refuses(values)) return;
  for (std::size_t i = 0; i < worlds_.size(); ++i) {
    worlds_[i].scatter->check_values(values + i * value_count_, every_object_.data(), " in world " + std::to_string(i));
  }
  for (std::size_t i = 0; i < worlds_.size(); ++i) {
    if (reset && reset[i]) continue;
    worlds_[i].scatter->check(values + i * value_count_, every_object_.data(), " in world " + std::to_string(i));
  }
}

void WorldSteps::run_world(std::size_t i, const Batch& batch,
                           std::vector<std::pair<std::size_t, std::size_t>>& outside) const {
  const World& w = worlds_[i];
  if (batch.reset && batch.reset[i]) {
    w.reset->reset(MujocoReset::kStart, batch.reset_qpos ? batch.reset_qpos[i] : nullptr,
                   batch.reset_qvel ? batch.reset_qvel[i] : nullptr);
    // Read as the reset leaves it, as a step's are read right after it.
    if (w.data_gather) w.data_gather->gather(batch.data + i * data_width_);
  } else if (batch.step[i] && batch.steps > 0) {
    for (std::size_t k : w.scatter->apply(batch.values + i * value_count_, every_object_.data(), every_event_.data(),
                                          batch.events_on + i * event_count_)) {
      outside.emplace_back(i, k);
    }
    if (w.scatter->pose_count() > 0) w.stepper->repositioned();
    w.stepper->step(batch.steps);
    if (w.data_gather) {
      if (after_step_) after_step_(w.model, w.data);
      w.data_gather->gather(batch.data + i * data_width_);
    }
  }
  w.stepper->settle();
  w.gather->gather(batch.sensors + i * sensor_width_);
  batch.times[i] = w.stepper->time();
}

bool WorldSteps::resets() const noexcept {
  return std::all_of(worlds_.begin(), worlds_.end(), [](const World& w) { return w.reset != nullptr; });
}

std::vector<std::pair<std::size_t, std::size_t>> WorldSteps::run(const Batch& batch) {
  const std::size_t n = worlds_.size();
  if (batch.reset) {
    for (std::size_t i = 0; i < n; ++i) {
      if (batch.reset[i] && !worlds_[i].reset) throw Error("world " + std::to_string(i) + " cannot be reset here");
    }
  }
  const std::size_t shares = pool_.threads();
  // Each thread starts on its own contiguous share (the larger first, as even as can be: the same worlds each
  // call, whose states its cache holds), then takes the worlds still waiting in the others' shares: a thread that
  // wakes late, or worlds that cost more, leave no thread idle while worlds wait.
  std::vector<std::atomic<std::size_t>> next(shares);
  std::vector<std::size_t> end(shares);
  for (std::size_t share = 0; share < shares; ++share) {
    next[share].store(share * (n / shares) + std::min(share, n % shares), std::memory_order_relaxed);
    end[share] = next[share].load(std::memory_order_relaxed) + n / shares + (share < n % shares ? 1 : 0);
  }
  std::vector<std::vector<std::pair<std::size_t, std::size_t>>> outside(shares);
  pool_.run([&](std::size_t share) {
    for (std::size_t k = 0; k < shares; ++k) {
      const std::size_t from = (share + k) % shares;
      for (std::size_t i = next[from].fetch_add(1, std::memory_order_relaxed); i < end[from];
           i = next[from].fetch_add(1, std::memory_order_relaxed)) {
        run_world(i, batch, outside[share]);
      }
    }
  });
  std::vector<std::pair<std::size_t, std::size_t>> all;
  for (auto& part : outside) all.insert(all.end(), part.begin(), part.end());
  // In world order, each world's values in the order its scatter found them (one thread scattered each world).
  std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return all;
}

}  // namespace coupler
