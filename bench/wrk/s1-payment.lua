-- S1: a whole host-to-host card payment per two requests: POST a deposit with a non-3DS card,
-- then PATCH it with the customer's IP so it completes. Counts completed payments, and as
-- failed (errors in the table) every answer below 400 that is neither a deposit to complete nor
-- a completed payment: DECLINED, PENDING, a body not understood (wrk counts 4xx and 5xx itself).
--
-- Each payment draws its card from 900 million distinct Luhn-valid 16-digit numbers: 400000
-- (a seeded BIN), nine random digits (the first never 0, so never one of the sandbox's special
-- 4000000000000xxx cards) and the check digit; the sandbox approves any such number without
-- 3-D Secure. One card for every payment is no payments workload, and the deposits of one card
-- are decided one after another when the shop has a velocity rule (the demo shop has one).
--
-- wrk runs one Lua state per thread for all of that thread's connections, and builds a
-- connection's next request only when its socket is next writable, after other connections'
-- responses may have come in. So the ids to complete are a queue, not one variable: with one
-- variable a deposit whose response came in while another was waiting was never completed
-- (about one in seven, left in CHECKOUT and counted as half a payment).
local key = os.getenv("TOLLGATE_BENCH_KEY")
local hook = os.getenv("TOLLGATE_BENCH_WEBHOOK")
local to_complete = {}
local first, last = 1, 0
units = 0
failed = 0

-- 400000, nine random digits, and the Luhn check digit
local function card_number()
  local digits = "400000" .. math.random(100000000, 999999999)
  local sum = 0
  for i = #digits, 1, -1 do
    local d = tonumber(digits:sub(i, i))
    -- doubled: every second digit from the right once the check digit is appended
    if (#digits - i) % 2 == 0 then
      d = d * 2
      if d > 9 then d = d - 9 end
    end
    sum = sum + d
  end
  return digits .. ((10 - sum % 10) % 10)
end

function init(args)
  math.randomseed(os.time() + (tonumber(tostring({}):sub(8)) or 0))
end

request = function()
  if first <= last then
    local id = to_complete[first]
    to_complete[first] = nil
    first = first + 1
    return wrk.format("PATCH", "/api/v1/payments/" .. id,
      {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"},
      '{"customerIp":"203.0.113.10"}')
  end
  local body = '{"paymentType":"DEPOSIT","amount":12.34,"currency":"EUR","referenceId":"bench-' ..
    math.random(1, 1000000000) .. '",' ..
    (hook and ('"webhookUrl":"' .. hook .. '",') or '') ..
    '"customer":{"referenceId":"c-' .. math.random(1, 1000) .. '","email":"bench@example.com"},' ..
    '"card":{"cardNumber":"' .. card_number() .. '","cardholderName":"BENCH","expiryMonth":"12","expiryYear":"2045"}}'
  return wrk.format("POST", "/api/v1/payments",
    {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"}, body)
end

response = function(status, headers, body)
  local id, state
  if status == 200 then
    id, state = body:match('"id":"(%x+)".-"state":"(%u+)"')
  end
  if state == "CHECKOUT" then
    last = last + 1
    to_complete[last] = id
  elseif state == "COMPLETED" then
    units = units + 1
  elseif status < 400 then
    failed = failed + 1
  end
end
dofile("bench/wrk/summary.lua")
