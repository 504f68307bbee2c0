# Sourced by the bench scripts. print_table: the rows of ROWS ("name|rate|p50|p99|errors|cpu|heap")
# as one table, each rate also as a ratio to CEILING (tx/s). A row with errors is marked "!" and
# counted in TABLE_ERRORS: its rate is not to be trusted, and the scripts exit 1 after the table.
TABLE_ERRORS=0
print_table() {
  local row name rate p50 p99 errors cpu heap ratio
  printf '| %-62s | %10s | %8s | %8s | %6s | %12s | %8s | %7s |\n' "Scenario" "Rate" "p50 ms" "p99 ms" "Errors" "vs ceiling" "CPU %" "Heap MB"
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|\n' "----------------------------------------------------------------" "------------" "----------" "----------" "--------" "--------------" "----------" "---------"
  for row in "${ROWS[@]}"; do
    IFS='|' read -r name rate p50 p99 errors cpu heap <<< "$row"
    ratio=$(python3 -c "print(f'{float(\"$rate\") / float(\"$CEILING\"):.2f}x')" 2>/dev/null || echo "-")
    if [ "$errors" != 0 ] && [ "$errors" != - ]; then
      errors="! $errors"
      TABLE_ERRORS=$((TABLE_ERRORS + 1))
    fi
    printf '| %-62s | %10s | %8s | %8s | %6s | %12s | %8s | %7s |\n' "$name" "$rate" "$p50" "$p99" "$errors" "$ratio" "$cpu" "$heap"
  done
  if [ "$TABLE_ERRORS" != 0 ]; then
    echo "! $TABLE_ERRORS row(s) had errors (failed requests or payments, undelivered webhooks): their figures are not to be trusted"
  fi
}
