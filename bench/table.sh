# Sourced by the bench scripts. print_table: the rows of ROWS ("name|rate|p50|p99|errors|cpu|heap")
# as one table, each rate also as a ratio to CEILING (tx/s).
print_table() {
  local row name rate p50 p99 errors cpu heap ratio
  printf '| %-62s | %10s | %8s | %8s | %6s | %12s | %8s | %7s |\n' "Scenario" "Rate" "p50 ms" "p99 ms" "Errors" "vs ceiling" "CPU %" "Heap MB"
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "----------------------------------------------------------------" "------------" "----------" "----------" "--------" "--------------" "----------" "---------"
  for row in "${ROWS[@]}"; do
    IFS='|' read -r name rate p50 p99 errors cpu heap <<< "$row"
    ratio=$(python3 -c "print(f'{float(\"$rate\") / float(\"$CEILING\"):.2f}x')" 2>/dev/null || echo "-")
    printf '| %-62s | %10s | %8s | %8s | %6s | %12s | %8s | %7s |\n' "$name" "$rate" "$p50" "$p99" "$errors" "$ratio" "$cpu" "$heap"
  done
}
