// common/WorkThreads: the one way core spreads operators, graphs and sweep points over threads.
// What the faces rely on: every item runs once, one thread means the calling thread alone, and
// errors come out as from a serial loop (the first item's by index, whatever the threads).
#include <atomic>
#include <catch2/catch.hpp>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/WorkThreads.hpp"

using namespace ts;

TEST_CASE("for_each_item runs every item once, on the threads run_with_threads allows",
          "[threads]") {
  for (const int threads : {1, 2, 3}) {
    std::vector<std::atomic<int>> runs(200);
    std::mutex lock;
    std::set<std::thread::id> seen;
    run_with_threads(threads, [&] {
      for_each_item(runs.size(), [&](size_t i) {
        ++runs[i];
        const std::lock_guard<std::mutex> hold(lock);
        seen.insert(std::this_thread::get_id());
      });
    });
    for (const auto& r : runs) CHECK(r.load() == 1);
    CHECK(seen.size() <= static_cast<size_t>(threads));
    if (threads == 1) CHECK(seen == std::set<std::thread::id>{std::this_thread::get_id()});
  }
  CHECK(available_threads() >= 1);
}

TEST_CASE("for_each_item rethrows the first failing item's error, as a serial loop would",
          "[threads]") {
  for (const int threads : {1, 2, 4}) {
    std::atomic<size_t> ran_after{0};
    std::string message;
    try {
      run_with_threads(threads, [&] {
        for_each_item(64, [&](size_t i) {
          if (i == 40) throw std::runtime_error("item 40");
          if (i == 10) throw std::invalid_argument("item 10");
          if (i > 40) ++ran_after;
        });
      });
    } catch (const std::invalid_argument& e) {
      message = e.what();
    } catch (const std::exception& e) {
      message = std::string("wrong error: ") + e.what();
    }
    CHECK(message == "item 10");
    // One thread stops where the serial loop stops: nothing after item 10 starts.
    if (threads == 1) CHECK(ran_after.load() == 0);
  }
}

TEST_CASE("for_each_item runs nested loops inside an item", "[threads]") {
  std::vector<std::atomic<int>> cells(16 * 16);
  run_with_threads(2, [&] {
    for_each_item(16, [&](size_t row) {
      for_each_item(16, [&](size_t column) { ++cells[row * 16 + column]; });
    });
  });
  for (const auto& c : cells) CHECK(c.load() == 1);
}
