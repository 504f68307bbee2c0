-- S1: a whole host-to-host card payment per two requests: POST a deposit with a non-3DS test
-- card, then PATCH it with the customer's IP so it completes.
local key = os.getenv("TOLLGATE_BENCH_KEY")
local hook = os.getenv("TOLLGATE_BENCH_WEBHOOK")
local pending = nil
local counter = 0

function init(args)
  math.randomseed(os.time() + (tonumber(tostring({}):sub(8)) or 0))
end

request = function()
  if pending then
    local id = pending
    pending = nil
    return wrk.format("PATCH", "/api/v1/payments/" .. id,
      {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"},
      '{"customerIp":"203.0.113.10"}')
  end
  counter = counter + 1
  local body = '{"paymentType":"DEPOSIT","amount":12.34,"currency":"EUR","referenceId":"bench-' ..
    math.random(1, 1000000000) .. '",' ..
    (hook and ('"webhookUrl":"' .. hook .. '",') or '') ..
    '"customer":{"referenceId":"c-' .. math.random(1, 1000) .. '","email":"bench@example.com"},' ..
    '"card":{"cardNumber":"4000000000000408","cardholderName":"BENCH","expiryMonth":"12","expiryYear":"2030"}}'
  return wrk.format("POST", "/api/v1/payments",
    {["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json"}, body)
end

response = function(status, headers, body)
  if status == 200 and not pending then
    local id, state = body:match('"id":"(%x+)".-"state":"(%u+)"')
    if state == "CHECKOUT" then
      pending = id
    end
  end
end
dofile("bench/wrk/summary.lua")
