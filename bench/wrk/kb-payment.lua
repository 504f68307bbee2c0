-- Kill Bill beside Tollgate (bench/killbill.sh): one PURCHASE through Kill Bill's built-in
-- external payment plugin per request, on an account picked at random from KB_BENCH_ACCOUNTS
-- (each with that plugin as its default payment method). Counts the payments created (201).
local accounts = {}
for line in io.lines(os.getenv("KB_BENCH_ACCOUNTS")) do
  accounts[#accounts + 1] = line
end
local headers = {
  ["Authorization"] = "Basic " .. os.getenv("KB_BENCH_BASIC"),
  ["X-Killbill-ApiKey"] = os.getenv("KB_BENCH_API_KEY"),
  ["X-Killbill-ApiSecret"] = os.getenv("KB_BENCH_API_SECRET"),
  ["X-Killbill-CreatedBy"] = "bench",
  ["Content-Type"] = "application/json",
}
local body = '{"transactionType":"PURCHASE","amount":12.34,"currency":"EUR"}'
units = 0

function init(args)
  math.randomseed(os.time() + (tonumber(tostring({}):sub(8)) or 0))
end

request = function()
  return wrk.format("POST", "/1.0/kb/accounts/" .. accounts[math.random(1, #accounts)] .. "/payments", headers, body)
end

response = function(status, headers, body)
  if status == 201 then
    units = units + 1
  end
end
dofile("bench/wrk/summary.lua")
