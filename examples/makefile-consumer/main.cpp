// examples/makefile-consumer/main.cpp - the tiny CNN through the C++ wrapper
// of its generated header (tfrt_models::tiny_cnn).
//
// Runs the model on a fixed 1x1x8x8 input and prints the class
// probabilities on one line:
//   tiny_cnn.y: v0 v1 v2
// Exit status 0 when creation and the run succeeded.
#include <cstdio>
#include <vector>

#include "tiny_cnn.h"

int main() {
  using Model = tfrt_models::tiny_cnn;
  Model model;
  if (!model.ok()) {
    std::fprintf(stderr, "error: %s\n", model.error().c_str());
    return 1;
  }
  std::vector<float> x(Model::kInput0Elements), y(Model::kOutput0Elements);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = static_cast<float>(((i * 7) % 11) / 10.0 - 0.5);
  if (!model.Run(x.data(), y.data())) {
    std::fprintf(stderr, "error: %s\n", model.error().c_str());
    return 1;
  }
  std::printf("tiny_cnn.y:");
  for (float v : y)
    std::printf(" %.9g", v);
  std::printf("\n");
  return 0;
}
