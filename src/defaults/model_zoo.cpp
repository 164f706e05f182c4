// The model zoo's table, compiled once (see reference_executor.cpp for how these files work).
#include <autograph/models/zoo.hpp>

std::span<autograph::models::ModelInfo const> autograph::models::zoo() { return detail::zoo_table(); }
