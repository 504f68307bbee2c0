-- S1: a whole host-to-host card payment per two requests: POST a deposit with a non-3DS test
-- card, then PATCH it with the customer's IP so it completes. Counts completed payments.
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
    '"card":{"cardNumber":"4000000000000408","cardholderName":"BENCH","expiryMonth":"12","expiryYear":"2030"}}'
  return wrk.format("POST", "/api/v1/payments",
    {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"}, body)
end

response = function(status, headers, body)
  if status == 200 then
    local id, state = body:match('"id":"(%x+)".-"state":"(%u+)"')
    if state == "CHECKOUT" then
      last = last + 1
      to_complete[last] = id
    elseif state == "COMPLETED" then
      units = units + 1
    end
  end
end
dofile("bench/wrk/summary.lua")
