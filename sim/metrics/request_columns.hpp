// The columns of requests.csv, declared once: each column's name, unit, meaning and how its text is
// read from a RequestRecord. write_requests_csv (result_writers.hpp) writes the header and the rows
// from this list, in its order; docs/simulator.md's "requests.csv columns" table is
// request_columns_markdown() (tests/sim/test_summary_metrics.cpp checks it). Numbers are in fixed
// notation with 6 decimals; an undefined figure (a request that never reached the point) is empty.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/serving/serving_observer.hpp"

namespace engramsim::sim {

struct RequestColumn {
  std::string name;     // the CSV header
  std::string unit;     // "ms", "s", "tokens", "" for an id or a count
  std::string meaning;  // one line, for the docs table
  std::function<std::string(const RequestRecord&)> text;
};

// The built-in list, in column order.
const std::vector<RequestColumn>& request_columns();

// The docs table of `list`: column, unit, meaning.
std::string request_columns_markdown(const std::vector<RequestColumn>& list);

}  // namespace engramsim::sim
