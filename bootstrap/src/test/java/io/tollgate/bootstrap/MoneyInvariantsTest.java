package io.tollgate.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tollgate.application.port.in.ProvisioningUseCase.CreateShopCommand;
import io.tollgate.bootstrap.TestGateway.Answer;
import io.tollgate.domain.payment.OperationType;
import io.tollgate.domain.payment.PaymentState;
import io.tollgate.domain.payment.PaymentTransitions;
import io.tollgate.domain.payment.PaymentType;
import io.tollgate.domain.shop.ShopId;
import io.tollgate.domain.user.Permission;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * No payment lost or made twice, and every balance what its ledger says: a few hundred random
 * operations over the gateway API (host-to-host deposits with cards that complete, decline or
 * ask for 3-D Secure, bank transfers, pre-authorizations captured in full or in part or voided
 * (by a terminal that answers at once, or one that leaves its first calls unanswered),
 * refunds and over-refunds, withdrawals with and without approval and balance check, payments
 * converted for a terminal in another currency or cascaded to one, payouts declined by the
 * anti-fraud screen or cascaded out of a terminal that converted them (at a rate moved meanwhile
 * too), retries with one Idempotency-Key, and races of several requests on one payment or one
 * balance), sent to either of two instances on one database, checked against a model of what
 * must hold, during the run and once the payouts have settled. The shops' webhook receiver
 * refuses some deliveries (and a few every time, until the gateway gives up and the merchant API
 * resends them), the merchant API resends some settled payments' webhooks, and its balances are
 * held to the ledger too.
 *
 * <p>The run is drawn from a seed, printed at the start; {@code -Dtollgate.money.seed=<seed>}
 * replays it, {@code -Dtollgate.money.operations=<n>} makes it longer or shorter.
 */
class MoneyInvariantsTest {

  static final long SEED = Long.getLong("tollgate.money.seed", System.nanoTime());
  static final int OPERATIONS = Integer.getInteger("tollgate.money.operations", 200);
  static final Duration SETTLE = Duration.ofSeconds(40);

  static final String APPROVED = "4000000000000408";
  static final String APPROVED_OTHER = "4111111111111111";
  static final String DECLINED = "4000000000000416";
  static final String NO_FUNDS = "4000000000009995";
  static final String WRONG_CVV = "4000000000000127";
  static final String CHALLENGED = "4000000000000002";
  static final String CHALLENGED_DECLINED = "4242424242424242";
  static final BigDecimal PAYOUT_LIMIT = new BigDecimal("10000");
  static final List<String> CURRENCIES = List.of("EUR", "USD", "JPY");
  /** The shops every operation may choose, the first of {@link #shops}. */
  static final int REGULAR_SHOPS = 4;
  /** Where {@link #convertedStep} pays: a shop whose only terminal charges in USD, converting the rest. */
  static final int CONVERTING_SHOP = REGULAR_SHOPS + 1;
  /**
   * Where {@link #convertedStep} pays with the card the first terminal declines 4.02: a EUR
   * terminal whose 4.02 cascades to a USD one, which converts.
   */
  static final int CASCADING_SHOP = CONVERTING_SHOP + 1;
  static final String CASCADES = "4000000000000424";
  /** Where {@link #velocityRace} pays: a shop whose anti-fraud profile allows a card {@value #PER_CARD} deposits. */
  static final int LIMITED_SHOP = CASCADING_SHOP + 1;
  static final int PER_CARD = 3;
  /**
   * Where {@link #checkedConvertedStep} pays: a shop checking its withdrawals' balance whose only
   * terminal pays in USD, so that a withdrawal asked in EUR or JPY is checked when it is routed.
   */
  static final int CHECKING_CONVERTING_SHOP = LIMITED_SHOP + 1;
  /**
   * Where {@link #screenedAndCascadedPayouts} pays out EUR: a shop whose anti-fraud profile
   * blacklists {@link #BLACKLISTED}, whose USD terminal converts and declines 4.02 on to its JPY
   * terminal, which converts anew from the EUR asked.
   */
  static final int SCREENING_SHOP = CHECKING_CONVERTING_SHOP + 1;
  static final String BLACKLISTED = "400000000000066" + luhnDigit("400000000000066");
  static final BigDecimal EUR_TO_JPY = new BigDecimal("161.50");
  /**
   * Where {@link #screenedAndCascadedPayouts} pays out USD and EUR: a shop whose first EUR terminal
   * declines 4.02 on to its second, and moves the USD to EUR rate while it declines a USD payout.
   */
  static final int RATE_MOVING_SHOP = SCREENING_SHOP + 1;
  /** The USD to EUR rates the rate-moving shop's first terminal moves between. */
  static final List<BigDecimal> USD_TO_EUR = List.of(new BigDecimal("0.9200"), new BigDecimal("0.9400"));
  /** The rates into USD the converting shop's payments are converted at. */
  static final Map<String, BigDecimal> TO_USD =
      Map.of("EUR", new BigDecimal("1.0850"), "JPY", new BigDecimal("0.0067"));

  /** What TOLLGATE_WEBHOOK_RETRY_SCHEDULE is set to: an event is tried once, and again after each delay. */
  static final List<String> RETRY_SCHEDULE = List.of("PT1S", "PT2S", "PT4S", "PT8S");
  /** What the receiver answers a delivery it refuses: any answer but a 2xx is retried, a 4xx too. */
  static final List<Integer> REFUSALS = List.of(500, 502, 503, 400, 404, 429);
  static final Set<String> FINAL_STATES = Set.of("COMPLETED", "DECLINED", "CANCELLED");

  static TestGateway gw;
  /** A second instance on the same database: requests go to either, and both run the background jobs. */
  static Tollgate second;
  static WebhookReceiver hooks;
  /** The merchant API's credentials of a user of the shops' merchant. */
  static String[] merchantUser;
  static final ExecutorService pool = Executors.newFixedThreadPool(8);
  /** The acquirer both instances' payments go to, which leaves the tardy cards' calls unanswered for a while. */
  static TardyAcquirer acquirer;

  @BeforeAll
  static void start() throws Exception {
    // a delivery that fails on a busy machine is sent again within the run's wait, not a minute later
    Map<String, String> retries = Map.of("TOLLGATE_WEBHOOK_RETRY_SCHEDULE", String.join(",", RETRY_SCHEDULE));
    acquirer = new TardyAcquirer(new io.tollgate.processor.sandbox.SandboxProcessor(Tollgate.Services.CLOCK), SEED);
    gw = TestGateway.start(retries, sandbox -> acquirer);
    Map<String, String> env = new HashMap<>(TestGateway.environment(gw.database, "tollgate-money-second"));
    env.putAll(retries);
    env.put("TOLLGATE_MASTER_KEY", TestGateway.MASTER_KEY);
    env.put("TOLLGATE_JOB_INTERVAL", "PT0.1S");
    env.put("TOLLGATE_RATE_LIMIT", "0");
    second = Tollgate.start(TollgateConfig.from(env), gw.database, sandbox -> acquirer);
    hooks = new WebhookReceiver();
    // SHOP_EDIT for the resends; the balances need no permission
    merchantUser = gw.merchantUser(gw.merchant, "money@merchant.example", Permission.SHOP_EDIT);
  }

  @AfterAll
  static void stop() {
    pool.shutdownNow();
    try {
      hooks.close();
    } finally {
      try {
        second.close();
      } finally {
        gw.close();
      }
    }
  }

  /** A shop of the run, with the settings that decide what a withdrawal does. */
  record Shop(String name, ShopId id, String key, String signingKey, boolean approval, boolean checkBalance) {

    /** The name the shop was created with, which its balances are named after. */
    String fullName() {
      return "Money " + name;
    }
  }

  /** What the model knows of one payment. */
  static final class Tracked {
    static final java.util.concurrent.atomic.AtomicLong SEQUENCE = new java.util.concurrent.atomic.AtomicLong();
    final String id;
    final Shop shop;
    final PaymentType type;
    final String currency;
    final String parent;
    final boolean preAuth;
    final String card;
    /** The order the model learnt of it in. */
    final long seq = SEQUENCE.incrementAndGet();
    /** What the payment is (or, once captured, was captured) for. */
    volatile BigDecimal amount;
    /** The states it may be in once the run has settled. */
    volatile Set<String> ends;
    /** Whether a withdrawal or refund is known to have given back what it held (declined 1.10, rejected). */
    volatile boolean released;
    /** What it was asked as, in another currency than {@link #currency}, when routing converted it. */
    volatile BigDecimal asked;
    volatile String askedCurrency;
    /**
     * What a cascaded withdrawal held at the converting terminal that declined it, before it moved
     * on: in another currency than it was asked and is paid in, or in the same at another rate.
     */
    volatile BigDecimal passed;
    volatile String passedCurrency;
    /**
     * Whether a withdrawal held nothing until it was routed: one of a checking shop that only a
     * terminal in another currency could pay, unchecked when it was created.
     */
    volatile boolean heldOnceRouted;
    /** Whether a deposit may still wait for the sandbox bank, or for an acquirer yet to answer, to settle it. */
    volatile boolean awaitsBank;
    /** The states the merchant is told of by webhook, in order, once it has settled. */
    final List<String> announced = new ArrayList<>();

    Tracked(String id, Shop shop, PaymentType type, String currency, BigDecimal amount, String parent,
        boolean preAuth, String card, Set<String> ends) {
      this.id = id;
      this.shop = shop;
      this.type = type;
      this.currency = currency;
      this.amount = amount;
      this.parent = parent;
      this.preAuth = preAuth;
      this.card = card;
      this.ends = ends;
    }

    boolean certainly(String state) {
      return ends.equals(Set.of(state));
    }

    @Override
    public String toString() {
      return type + " " + id + " " + amount + " " + currency + " of " + shop.name() + " ending " + ends;
    }
  }

  final Random random = new Random(SEED);
  final List<Shop> shops = new ArrayList<>();
  final Map<String, Tracked> tracked = new ConcurrentHashMap<>();
  final Map<String, String> idempotencyKeys = new ConcurrentHashMap<>();
  final List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());
  int keys;
  /** The attempts of each webhook event that reached the receiver, by Webhook-Id. */
  final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
  /** Events whose every attempt the receiver refuses, until the gateway gives up on them and the test resends them. */
  final Set<String> refusedForGood = ConcurrentHashMap.newKeySet();
  /** Whether an event may still be refused for good: only early, so that its whole schedule runs out within the run. */
  volatile boolean refusingForGood = true;
  /** The events the test had sent again, by Webhook-Id, each to be taken by the receiver once more. */
  final Map<String, Resent> resent = new ConcurrentHashMap<>();
  /** Payouts the default terminal's balance check declined 1.10, a refund having taken the balance below zero. */
  final AtomicInteger declinedWhenRouted = new AtomicInteger();
  /**
   * For choices made from what the receiver has taken so far, which differs from run to run: drawn
   * from apart from {@link #random}, they leave the seed's operations as they were.
   */
  final Random webhookRandom = new Random(~SEED);
  /** The USD to EUR rate, which the rate-moving shop's first terminal moves while it declines a USD payout. */
  volatile BigDecimal usdToEur = USD_TO_EUR.get(0);
  /** The rate-moving shop's last USD payout: the next one waits until it has moved on, one rate move at a time. */
  Tracked rateMover;

  /**
   * An event resent for {@code payment}, in {@code state}, after the receiver had taken it
   * {@code takenBefore} times; {@code givenUp} when the gateway had given up on it.
   */
  record Resent(Tracked payment, String state, long takenBefore, boolean givenUp) {}

  @Test
  void money_is_neither_lost_nor_doubled_and_balances_follow_the_ledger() throws Exception {
    System.out.println("MoneyInvariantsTest seed " + SEED + " (replay with -Dtollgate.money.seed=" + SEED + ")");
    long began = System.nanoTime();
    hooks.answerBy(this::answer);
    shops.add(shop("plain", false, false));
    shops.add(shop("approving", true, false));
    shops.add(shop("checking", false, true));
    shops.add(shop("approving and checking", true, true));
    shops.add(shop("hasty", false, false, Duration.ofSeconds(1)));
    shops.add(convertingShop());
    shops.add(cascadingShop());
    shops.add(limitedShop());
    shops.add(checkingConvertingShop());
    shops.add(screeningShop());
    shops.add(rateMovingShop());
    try {
      for (int i = 0; i < OPERATIONS; i++) {
        if (i == OPERATIONS / 4) {
          refusingForGood = false;
        }
        if (i % 40 == 0) {
          // paths no other step takes, in every run however short, paid out while the next steps run
          screenedAndCascadedPayouts();
        }
        step(i);
        if (i % 40 == 39) {
          balancesFollowTheLedger("after operation " + i);
          capturesAndVoidsAnswered();
          everyAcquirerDecisionIsCountedOnce();
          settledBankTransfers();
          unansweredDepositsOverdue();
          resendSettledWebhooks(2);
          resendGivenUpWebhooks(false);
        }
      }
      long ran = System.nanoTime();
      capturesAndVoidsAnswered();
      settle();
      System.out.println("MoneyInvariantsTest: operations " + Duration.ofNanos(ran - began).toMillis()
          + " ms, settled in " + Duration.ofNanos(System.nanoTime() - ran).toMillis() + " ms");
      balancesFollowTheLedger("once settled");
      everyPaymentEndsAsModelled();
      everyLedgerEntryIsItsPaymentsOwn();
      screenedAndCascadedPayoutsRan();
      everyAcquirerDecisionIsCountedOnce();
      refundsNeverExceedTheirDeposit();
      checkedShopsNeverPayOutMoreThanTheyHold();
      everyStepIsOneTheContractAllows();
      resendGivenUpWebhooks(true);
      everyAnnouncedStateHasOneWebhookDeliveredInOrder();
      everyIdempotencyKeyNamesOnePayment();
    } catch (AssertionError | RuntimeException e) {
      List<String> last;
      synchronized (log) {
        last = List.copyOf(log.subList(Math.max(0, log.size() - 15), log.size()));
      }
      throw new AssertionError("seed " + SEED + " (replay with -Dtollgate.money.seed=" + SEED + "); last steps:\n  "
          + String.join("\n  ", last) + "\n" + e.getMessage(), e);
    }
    long refused = hooks.received().stream().filter(r -> r.status() / 100 != 2).map(r -> r.header("Webhook-Id"))
        .distinct().count();
    long givenUp = resent.values().stream().filter(Resent::givenUp).count();
    System.out.println("MoneyInvariantsTest webhooks: " + attempts.size() + " events, " + refused
        + " refused at first, " + givenUp + " given up on and resent, " + (resent.size() - givenUp)
        + " settled ones resent");
    Map<String, Long> tardy = new java.util.TreeMap<>();
    Map<String, Long> checked = new java.util.TreeMap<>();
    for (Tracked t : tracked.values()) {
      if (TardyAcquirer.tardy(t.card) || (t.parent != null && TardyAcquirer.tardy(tracked.get(t.parent).card))) {
        tardy.merge(t.type + (t.preAuth ? " pre-auth " : " ") + t.ends, 1L, Long::sum);
      }
      if (t.shop == shops.get(CHECKING_CONVERTING_SHOP) && t.type == PaymentType.WITHDRAWAL) {
        checked.merge(t.currency + (t.asked == null ? "" : " from " + t.askedCurrency) + " " + t.ends, 1L, Long::sum);
      }
    }
    System.out.println("MoneyInvariantsTest acquirer: " + acquirer.unanswered() + " calls left unanswered, of "
        + tardy + "; tardy captures and voids answered when made again " + answeredAgain + ", to the job "
        + answeredToJob + "; withdrawals of the shop checking converted ones: " + checked
        + "; payouts declined 1.10 when routed to the default terminal: " + declinedWhenRouted);
    System.out.println("MoneyInvariantsTest seed " + SEED + ": " + tracked.size() + " payments in "
        + Duration.ofNanos(System.nanoTime() - began).toMillis() + " ms");
  }

  // ---- the run ------------------------------------------------------------------------------

  private Shop shop(String name, boolean approval, boolean checkBalance) {
    return shop(name, approval, checkBalance, null);
  }

  private Shop shop(String name, boolean approval, boolean checkBalance, Duration checkoutTimeout) {
    ShopId id = gw.app.services().shops().createShop(new CreateShopCommand(gw.merchant, "Money " + name,
        hooks.url("/" + name.replace(' ', '-')), null, checkoutTimeout, checkBalance, approval, "EUR"));
    var keys = gw.app.services().shops().issueKeys(id, gw.app.services().environment());
    return new Shop(name, id, keys.apiKey(), keys.signingKey(), approval, checkBalance);
  }

  private void step(int i) throws Exception {
    int dice = random.nextInt(117);
    // the hasty shop's checkout timeout is for checkoutDeadlineRace alone: elsewhere it would
    // make what a slow machine answers depend on its speed
    Shop shop = shops.get(random.nextInt(REGULAR_SHOPS));
    String currency = CURRENCIES.get(random.nextInt(CURRENCIES.size()));
    if (dice < 20) {
      deposit(shop, currency, randomAmount(currency, false), randomCard(), random.nextInt(5) == 0, true);
    } else if (dice < 23) {
      bankDeposit(shop, currency);
    } else if (dice < 26) {
      bankWithdrawal(shop, currency);
    } else if (dice < 35) {
      preAuthStep(shop);
    } else if (dice < 49) {
      refundStep(shop);
    } else if (dice < 62) {
      withdraw(shop, currency, randomAmount(currency, true), random.nextInt(6) == 0 ? DECLINED : APPROVED, true);
    } else if (dice < 68) {
      decideStep(shop);
    } else if (dice < 75) {
      idempotentRetries(shop, currency);
    } else if (dice < 79) {
      refundRace(shop, currency);
    } else if (dice < 82) {
      withdrawalRace(shop, currency);
    } else if (dice < 87) {
      actionRace(shop, currency);
    } else if (dice < 88) {
      checkoutDeadlineRace(currency); // rare: it waits for its deadline
    } else if (dice < 91) {
      checkoutPageRace(shop, currency);
    } else if (dice < 95) {
      convertedStep();
    } else if (dice < 96) {
      velocityRace();
    } else if (dice < 100) {
      mixedBurst();
    } else if (dice < 112) {
      tardyStep(shop, currency);
    } else {
      checkedConvertedStep();
    }
  }

  private BigDecimal randomAmount(String currency, boolean payout) {
    if (currency.equals("JPY")) {
      // over the sandbox's payout limit of 10,000 now and then
      return BigDecimal.valueOf(1 + random.nextInt(payout ? 12_000 : 40_000));
    }
    return BigDecimal.valueOf(1 + random.nextInt(payout ? 30_000 : 60_000), 2);
  }

  private String randomCard() {
    int dice = random.nextInt(20);
    return dice < 9 ? APPROVED : dice < 11 ? APPROVED_OTHER : dice < 13 ? DECLINED : dice < 14 ? NO_FUNDS
        : dice < 15 ? WRONG_CVV : dice < 18 ? CHALLENGED : CHALLENGED_DECLINED;
  }

  private String nextKey(String what) {
    synchronized (this) {
      return "money-" + SEED + "-" + what + "-" + keys++;
    }
  }

  private static String cardJson(String number) {
    return "\"card\":{\"cardNumber\":\"" + number + "\",\"cardholderName\":\"ANN LEE\",\"cardSecurityCode\":\"123\","
        + "\"expiryMonth\":\"12\",\"expiryYear\":\"2045\"}";
  }

  private static String depositBody(String currency, BigDecimal amount, String card, boolean preAuth) {
    return "{\"paymentType\":\"DEPOSIT\",\"amount\":" + amount.toPlainString() + ",\"currency\":\"" + currency
        + "\",\"preAuth\":" + preAuth + "," + cardJson(card) + "}";
  }

  private static String withdrawalBody(String currency, BigDecimal amount, String card) {
    return "{\"paymentType\":\"WITHDRAWAL\",\"amount\":" + amount.toPlainString() + ",\"currency\":\"" + currency
        + "\"," + cardJson(card) + "}";
  }

  private static String refundBody(String currency, BigDecimal amount, String parent) {
    return "{\"paymentType\":\"REFUND\",\"amount\":" + amount.toPlainString() + ",\"currency\":\"" + currency
        + "\",\"parentPaymentId\":\"" + parent + "\"}";
  }

  private static JsonNode ok(Answer a, String what) {
    assertThat(a.status()).as(what + ": " + a.body()).isEqualTo(200);
    return a.json().get("result");
  }

  /**
   * A host-to-host deposit, paid (mostly) with its card, and a challenge answered (mostly);
   * returns it, or null when it was left in checkout.
   */
  Tracked deposit(Shop shop, String currency, BigDecimal amount, String card, boolean preAuth, boolean pay) {
    String key = random(3) == 0 ? nextKey("deposit") : null;
    String body = depositBody(currency, amount, card, preAuth);
    JsonNode created = ok(post("/api/v1/payments", body, shop.key(), key), "deposit");
    assertThat(created.get("state").asText()).isEqualTo("CHECKOUT");
    Tracked t = track(created.get("id").asText(), shop, PaymentType.DEPOSIT, currency, amount, null, preAuth, card,
        Set.of("CHECKOUT"));
    if (key != null) {
      idempotencyKeys.put(shop.id().value() + "/" + key, t.id);
      // sent again with another security code, which is never kept: the same request, answered again
      Answer again = post("/api/v1/payments", body.replace("\"cardSecurityCode\":\"123\"",
          "\"cardSecurityCode\":\"999\""), shop.key(), key);
      assertThat(again.status()).as("a retried deposit with another security code: " + again.body()).isEqualTo(200);
      assertThat(again.json().at("/result/id").asText()).isEqualTo(t.id);
      assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    }
    if (!pay || random(8) == 0) {
      note("deposit " + t + " left in checkout");
      return t;
    }
    String patchKey = random(4) == 0 ? nextKey("patch") : null;
    JsonNode done = ok(patch(t, patchKey), "patch");
    String state = done.get("state").asText();
    if (patchKey != null) {
      // its answer lost: the PATCH again with its key answers the same, and charges nothing again
      Answer again = patch(t, patchKey);
      assertThat(again.status()).as("a retried PATCH of " + t + ": " + again.body()).isEqualTo(200);
      assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
      assertThat(again.json().at("/result/state").asText()).isEqualTo(state);
    } else if (random(4) == 0) {
      assertThat(patch(t, null).status()).as("a second PATCH of " + t).isEqualTo(409);
    }
    boolean challenged = card.equals(CHALLENGED) || card.equals(CHALLENGED_DECLINED);
    String charged = preAuth ? "AUTHORIZED" : "COMPLETED";
    String expected = challenged ? "PENDING"
        : card.equals(APPROVED) || card.equals(APPROVED_OTHER) ? charged : "DECLINED";
    assertThat(state).as("host-to-host answer of " + t).isEqualTo(expected);
    if (challenged) {
      if (random(6) == 0) {
        t.ends = Set.of("PENDING");
      } else {
        boolean pass = random(4) != 0;
        challenge(t.id, pass);
        t.ends = Set.of(pass && card.equals(CHALLENGED) ? charged : "DECLINED");
      }
    } else {
      t.ends = Set.of(state);
    }
    if (!t.certainly("PENDING")) {
      t.announced.addAll(t.ends);
    }
    note("deposit " + t);
    return t;
  }

  /** A URI of either instance, at random (not from the run's seed: it decides nothing the model knows). */
  static URI uri(String path) {
    return (java.util.concurrent.ThreadLocalRandom.current().nextBoolean() ? gw.app.baseUri() : second.baseUri())
        .resolve(path);
  }

  static Answer get(String path, String key) {
    return gw.send(HttpRequest.newBuilder(uri(path)).GET().header("Authorization", "Bearer " + key));
  }

  static Answer post(String path, String body, String key, String idempotencyKey) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + key);
    if (idempotencyKey != null) {
      b.header("Idempotency-Key", idempotencyKey);
    }
    return gw.send(b);
  }

  private static Answer patch(Tracked t, String key) {
    return patch(t.id, t.shop, key);
  }

  /** The host-to-host execution of a deposit, with its own Idempotency-Key or none. */
  private static Answer patch(String id, Shop shop, String key) {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri("/api/v1/payments/" + id))
        .method("PATCH", HttpRequest.BodyPublishers.ofString("{\"customerIp\":\"203.0.113.9\"}"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer " + shop.key());
    if (key != null) {
      b.header("Idempotency-Key", key);
    }
    return gw.send(b);
  }

  /**
   * A bank transfer deposit, executed host-to-host: the sandbox bank settles it for what it
   * was asked, or for another sum, which is then what the deposit completes with.
   */
  private void bankDeposit(Shop shop, String currency) {
    BigDecimal amount = randomAmount(currency, false);
    BigDecimal received = random(3) == 0 ? partOf(amount.add(amount), currency) : null;
    JsonNode created = ok(post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"paymentMethod\":\"BANKTRANSFER\","
        + "\"amount\":" + amount.toPlainString() + ",\"currency\":\"" + currency + "\""
        + (received == null ? "" : ",\"additionalParameters\":{\"sandboxReceivedAmount\":\"" + received.toPlainString()
            + "\"}") + "}", shop.key(), null), "bank transfer deposit");
    Tracked t = track(created.get("id").asText(), shop, PaymentType.DEPOSIT, currency, amount, null, false, null,
        Set.of("CHECKOUT"));
    JsonNode opened = ok(patch(t, null), "bank transfer PATCH");
    assertThat(opened.get("state").asText()).isEqualTo("PENDING");
    t.awaitsBank = true;
    settled(t, "COMPLETED", received);
  }

  /** A bank transfer withdrawal: the sandbox bank pays any account but one ending in 0000. */
  private void bankWithdrawal(Shop shop, String currency) {
    BigDecimal amount = randomAmount(currency, true);
    BigDecimal[] available = shop.checkBalance() ? available(shop, currency) : null;
    boolean closed = random(4) == 0;
    JsonNode w = ok(post("/api/v1/payments", "{\"paymentType\":\"WITHDRAWAL\",\"paymentMethod\":\"BANKTRANSFER\","
        + "\"amount\":" + amount.toPlainString() + ",\"currency\":\"" + currency + "\","
        + "\"customer\":{\"accountNumber\":\""
        + (closed ? "DE00000000000000000000" : "DE02120300000000202051") + "\"}}", shop.key(), null),
        "bank transfer withdrawal");
    String state = w.get("state").asText();
    String taken = shop.approval() ? "AWAITING_APPROVAL" : "PENDING";
    if (available == null || amount.compareTo(available[0]) <= 0) {
      assertThat(state).as("a bank transfer withdrawal of " + amount + " " + currency).isEqualTo(taken);
    }
    if (available != null && amount.compareTo(available[1]) > 0) {
      assertThat(state).as("a bank transfer withdrawal of " + amount + " " + currency + " from at most "
          + available[1]).isEqualTo("DECLINED");
    }
    boolean declined = state.equals("DECLINED");
    String card = closed ? DECLINED : APPROVED; // how the payout is decided, as a card would be
    Set<String> ends = declined ? Set.of("DECLINED") : shop.approval() ? Set.of("AWAITING_APPROVAL")
        : Set.of(payoutEnd(amount, card));
    Tracked t = track(w.get("id").asText(), shop, PaymentType.WITHDRAWAL, currency, amount, null, false, card, ends);
    t.released = declined;
    if (declined || !shop.approval()) {
      t.announced.addAll(ends);
    }
    if (!declined && !shop.approval() && checkedAtTheDefaultTerminal(shop)) {
      routed(t, available(shop, currency));
    }
    note("bank transfer withdrawal " + t);
  }

  /**
   * A deposit of a shop with a checkout timeout of one second, paid around its deadline (or
   * its challenge answered around the challenge's): either paid, or cancelled 1.04 and never
   * charged, whichever came first, however late the job that cancels it runs.
   */
  private void checkoutDeadlineRace(String currency) throws InterruptedException {
    Shop shop = shops.get(REGULAR_SHOPS);
    int kind = random(3);
    String card = kind == 0 ? CHALLENGED : APPROVED;
    BigDecimal amount = randomAmount(currency, false);
    JsonNode created = ok(post("/api/v1/payments", depositBody(currency, amount, card, false), shop.key(), null),
        "deposit");
    Tracked t = track(created.get("id").asText(), shop, PaymentType.DEPOSIT, currency, amount, null, false, card,
        Set.of("CHECKOUT", "CANCELLED"));
    if (kind == 2) {
      settled(t, "CANCELLED", null); // by the expiry job
      return;
    }
    Thread.sleep(700 + random(600)); // around the deadline, to race the expiry job: no assertion waits on it
    Answer paid = patch(t, null);
    assertThat(paid.status()).as("a PATCH at the deadline of " + t + ": " + paid.body()).isIn(200, 409);
    if (paid.status() == 409) {
      assertThat(state(t)).isEqualTo("CANCELLED");
      settled(t, "CANCELLED", null);
      return;
    }
    String state = paid.json().at("/result/state").asText();
    if (card.equals(APPROVED)) {
      assertThat(state).isEqualTo("COMPLETED");
      settled(t, "COMPLETED", null);
      return;
    }
    assertThat(state).isEqualTo("PENDING");
    Thread.sleep(700 + random(600));
    challengeIfOffered(t.id);
    String now = state(t);
    assertThat(now).as("a challenge answered at its deadline of " + t).isIn("PENDING", "COMPLETED", "CANCELLED");
    settled(t, now.equals("PENDING") ? "CANCELLED" : now, null);
  }

  /**
   * The customer on the checkout page while the merchant acts host-to-host: a deposit with its
   * card, whose page's form (which its script sends at once) processes that card, sent while the
   * merchant PATCHes it; or one without a card, whose card form is sent while the customer also presses Cancel
   * (another tab). Whatever wins, the card is charged at most once, and never for a deposit
   * that ends cancelled.
   */
  private void checkoutPageRace(Shop shop, String currency) throws Exception {
    BigDecimal amount = randomAmount(currency, false);
    int n = 4 + random(5);
    String card = random(4) == 0 ? DECLINED : APPROVED;
    if (random(2) == 0) {
      JsonNode created = ok(post("/api/v1/payments", depositBody(currency, amount, card, false), shop.key(), null),
          "deposit");
      Tracked t = track(created.get("id").asText(), shop, PaymentType.DEPOSIT, currency, amount, null, false, card,
          Set.of("CHECKOUT"));
      String token = gw.checkoutCsrf(t.id);
      List<Answer> answers = race(n, i -> i % 2 == 0 ? patch(t, null) : gw.processCard(t.id, token));
      for (int i = 1; i < n; i += 2) {
        assertThat(answers.get(i).status()).as("the page's form sent while it is PATCHed").isEqualTo(303);
      }
      long patched = 0;
      for (int i = 0; i < n; i += 2) {
        assertThat(answers.get(i).status()).as("a PATCH while the page is opened: " + answers.get(i).body())
            .isIn(200, 409);
        patched += answers.get(i).status() == 200 ? 1 : 0;
      }
      assertThat(patched).as("PATCHes of " + t + " that executed it").isLessThanOrEqualTo(1);
      String end = card.equals(APPROVED) ? "COMPLETED" : "DECLINED";
      assertThat(state(t)).as("state of " + t + " once PATCHed and opened at once").isEqualTo(end);
      settled(t, end, null);
      return;
    }
    JsonNode created = ok(post("/api/v1/payments", "{\"paymentType\":\"DEPOSIT\",\"amount\":" + amount.toPlainString()
        + ",\"currency\":\"" + currency + "\"}", shop.key(), null), "deposit");
    Tracked t = track(created.get("id").asText(), shop, PaymentType.DEPOSIT, currency, amount, null, false, card,
        Set.of("CHECKOUT"));
    String page = gw.send(HttpRequest.newBuilder(uri("/checkout/" + t.id)).GET()).body();
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).as(page).isTrue();
    String token = URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8);
    List<Answer> answers = race(n, i -> gw.send(HttpRequest.newBuilder(uri("/checkout/" + t.id
        + (i % 2 == 0 ? "" : "/cancel")))
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + token + (i % 2 == 1 ? "" : "&cardNumber=" + card
            + "&cardholderName=Ann+Lee&expiryMonth=12&expiryYear=2045&cardSecurityCode=123")))
        .header("Content-Type", "application/x-www-form-urlencoded")));
    for (Answer a : answers) {
      assertThat(a.status()).as("the checkout page's forms sent at once: " + a.body()).isIn(200, 303);
    }
    JsonNode now = ok(get("/api/v1/payments/" + t.id, shop.key()), "payment");
    String end = now.get("state").asText();
    assertThat(end).as("card form and Cancel at once on " + t).isIn("CANCELLED", card.equals(APPROVED) ? "COMPLETED"
        : "DECLINED");
    if (end.equals("CANCELLED")) {
      assertThat(now.get("errorCode").asText()).isEqualTo("2.00");
    }
    settled(t, end, null);
  }

  /** Passes the challenge when the checkout page still offers it. */
  private static void challengeIfOffered(String id) {
    String page = gw.send(HttpRequest.newBuilder(uri("/checkout/" + id)).GET()).body();
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    if (!page.contains("/3ds") || !csrf.find()) {
      return;
    }
    Answer answered = gw.send(HttpRequest.newBuilder(uri("/checkout/" + id + "/3ds"))
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8)
            + "&result=pass"))
        .header("Content-Type", "application/x-www-form-urlencoded"));
    assertThat(answered.status()).isIn(303, 409);
  }

  /** The customer answers the 3-D Secure challenge on the checkout page. */
  static void challenge(String id, boolean pass) {
    String page = gw.send(HttpRequest.newBuilder(uri("/checkout/" + id)).GET()).body();
    Matcher csrf = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"").matcher(page);
    assertThat(csrf.find()).as(page).isTrue();
    Answer answered = gw.send(HttpRequest.newBuilder(uri("/checkout/" + id + "/3ds"))
        .POST(HttpRequest.BodyPublishers.ofString("csrf=" + URLEncoder.encode(csrf.group(1), StandardCharsets.UTF_8)
            + "&result=" + (pass ? "pass" : "fail")))
        .header("Content-Type", "application/x-www-form-urlencoded"));
    assertThat(answered.status()).isEqualTo(303);
  }

  private void preAuthStep(Shop shop) {
    if (random(8) == 0) {
      verifyCard(shop);
      return;
    }
    // a tardy card's pre-authorization is captured by tardyStep, which expects its terminal's silence
    Tracked authorized = pick(t -> t.shop == shop && t.certainly("AUTHORIZED") && t.amount.signum() > 0
        && !TardyAcquirer.tardy(t.card));
    if (authorized == null || random(4) == 0) {
      String currency = CURRENCIES.get(random(CURRENCIES.size()));
      deposit(shop, currency, randomAmount(currency, false), APPROVED, true, true);
      return;
    }
    int dice = random(10);
    String key = random(2) == 0 ? nextKey("action") : null;
    if (dice < 2) {
      // more than was authorized: refused, and still authorized
      BigDecimal over = authorized.amount.add(BigDecimal.ONE);
      Answer a = post("/api/v1/payments/" + authorized.id + "/capture", "{\"amount\":" + over + "}",
          shop.key(), key);
      assertThat(a.status()).as("over-capture of " + authorized + ": " + a.body()).isEqualTo(400);
      assertThat(state(authorized)).isEqualTo("AUTHORIZED");
      note("over-capture refused " + authorized);
    } else if (dice < 4) {
      JsonNode voided = ok(post("/api/v1/payments/" + authorized.id + "/void", "{}", shop.key(), key), "void");
      assertThat(voided.get("state").asText()).isEqualTo("CANCELLED");
      settled(authorized, "CANCELLED", null);
      retryAction(authorized, "void", "{}", key, voided);
    } else {
      BigDecimal part = dice < 7 ? authorized.amount : partOf(authorized.amount, authorized.currency);
      String body = dice < 6 && part.equals(authorized.amount) ? "{}" : "{\"amount\":" + part.toPlainString() + "}";
      JsonNode captured = ok(post("/api/v1/payments/" + authorized.id + "/capture", body, shop.key(), key),
          "capture");
      assertThat(captured.get("state").asText()).isEqualTo("COMPLETED");
      assertThat(captured.get("amount").decimalValue()).isEqualByComparingTo(part);
      settled(authorized, "COMPLETED", part);
      retryAction(authorized, "capture", body, key, captured);
    }
  }

  /** A shop whose only connector is a USD terminal: payments asked in EUR or JPY are converted for it. */
  private Shop convertingShop() {
    var reference = gw.app.services().persistence().referenceData();
    TO_USD.forEach((from, rate) -> reference.upsertCurrencyRate(
        new io.tollgate.application.port.out.ReferenceData.CurrencyRate(from, "USD", rate, java.time.Instant.now())));
    Shop shop = shop("converting", false, false);
    long terminal = reference.createTerminal(new io.tollgate.application.port.out.ReferenceData.Terminal(0,
        gw.merchant, "Money USD terminal", "ACTIVE", "Sandbox", "SANDBOX", "Sandbox",
        List.of("DEPOSIT", "WITHDRAWAL", "REFUND"), java.time.Instant.now()));
    reference.createConnector(new io.tollgate.application.port.out.ReferenceData.Connector(0, shop.id().value(),
        terminal, null, "ACTIVE", "BASIC_CARD", "USD", 1, 100, null, null, null, null, null), java.time.Instant.now());
    return shop;
  }

  /** A shop whose EUR terminal declines 4.02 on to its USD terminal, converting there. */
  private Shop cascadingShop() {
    var reference = gw.app.services().persistence().referenceData();
    Shop shop = shop("cascading", false, false);
    long group = gw.app.services().groups().create(gw.merchant, io.tollgate.domain.group.GroupKind.ERROR_CODE,
        "Money cascading codes", false).id();
    gw.app.services().persistence().groups().add(group,
        List.of(new io.tollgate.application.port.out.GroupRepository.Entry("4.02", "4.02")), "test",
        java.time.Instant.now());
    long first = reference.createTerminal(new io.tollgate.application.port.out.ReferenceData.Terminal(0,
        gw.merchant, "Money cascading EUR terminal", "ACTIVE", "Sandbox", "SANDBOX", "Sandbox",
        List.of("DEPOSIT", "WITHDRAWAL", "REFUND"), java.time.Instant.now()));
    long next = reference.createTerminal(new io.tollgate.application.port.out.ReferenceData.Terminal(0,
        gw.merchant, "Money cascading USD terminal", "ACTIVE", "Sandbox", "SANDBOX", "Sandbox",
        List.of("DEPOSIT", "WITHDRAWAL", "REFUND"), java.time.Instant.now()));
    reference.createConnector(new io.tollgate.application.port.out.ReferenceData.Connector(0, shop.id().value(),
        first, null, "ACTIVE", "BASIC_CARD", "EUR", 1, 100, null, null, group, null, null), java.time.Instant.now());
    reference.createConnector(new io.tollgate.application.port.out.ReferenceData.Connector(0, shop.id().value(),
        next, null, "ACTIVE", "BASIC_CARD", "USD", 2, 100, null, null, null, null, null), java.time.Instant.now());
    return shop;
  }

  /** A shop whose anti-fraud profile allows a card {@value #PER_CARD} completed (or in-progress) deposits an hour. */
  private Shop limitedShop() {
    var reference = gw.app.services().persistence().referenceData();
    Shop shop = shop("limited", false, false);
    long profile = reference.createAntifraudProfile(gw.merchant, "Money card limit", "UTC", java.time.Instant.now());
    reference.addAntifraudRule(profile, new io.tollgate.application.port.out.ReferenceData.AntifraudRule(0,
        "COMPLETED_DEPOSITS_PER_CARD", null, PER_CARD, 60));
    reference.attachAntifraudProfile(shop.id().value(), profile);
    return shop;
  }

  /**
   * Deposits with one card, executed at once on a shop that allows a card {@value #PER_CARD}:
   * screened one after another, so exactly that many are charged and the rest declined by the
   * screen, never charged.
   */
  private void velocityRace() throws Exception {
    Shop shop = shops.get(LIMITED_SHOP);
    StringBuilder digits = new StringBuilder("4");
    for (int i = 0; i < 14; i++) {
      digits.append(random(10));
    }
    String card = digits.append(luhnDigit(digits.toString())).toString();
    String currency = CURRENCIES.get(random(CURRENCIES.size()));
    int n = 4 + random(5);
    List<Tracked> deposits = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      BigDecimal amount = randomAmount(currency, false);
      JsonNode created = ok(post("/api/v1/payments", depositBody(currency, amount, card, false), shop.key(), null),
          "deposit");
      deposits.add(track(created.get("id").asText(), shop, PaymentType.DEPOSIT, currency, amount, null, false, card,
          Set.of("CHECKOUT")));
    }
    List<Answer> answers = race(n, i -> patch(deposits.get(i), null));
    int charged = 0;
    for (int i = 0; i < n; i++) {
      JsonNode done = ok(answers.get(i), "a deposit of a card at its limit");
      String state = done.get("state").asText();
      assertThat(state).as("deposits of one card at once: " + done).isIn("COMPLETED", "DECLINED");
      if (state.equals("DECLINED")) {
        assertThat(done.get("errorCode").asText()).as("declined by the screen: " + done).startsWith("6.");
      } else {
        charged++;
      }
      settled(deposits.get(i), state, null);
    }
    assertThat(charged).as(n + " deposits of one card at once, " + PER_CARD + " allowed").isEqualTo(
        Math.min(n, PER_CARD));
  }

  /** The check digit that makes {@code digits} and it pass the Luhn check. */
  static int luhnDigit(String digits) {
    int sum = 0;
    for (int i = 0; i < digits.length(); i++) {
      int d = digits.charAt(digits.length() - 1 - i) - '0';
      if (i % 2 == 0) {
        d *= 2;
        if (d > 9) {
          d -= 9;
        }
      }
      sum += d;
    }
    return (10 - sum % 10) % 10;
  }

  private static BigDecimal toUsd(BigDecimal amount, String currency) {
    return amount.multiply(TO_USD.get(currency)).setScale(2, RoundingMode.HALF_EVEN);
  }

  private static int scale(String currency) {
    return currency.equals("JPY") ? 0 : 2;
  }

  /**
   * Payments converted for a terminal in another currency: deposits charged (and credited) in
   * USD, captured in either currency, refunded in either at the deposit's own rate; withdrawals
   * held in the currency they were asked in until routed, then paid out of USD, converted, as
   * the deposits were credited to it.
   */
  private void convertedStep() {
    // the cascading shop converts what its first terminal declines 4.02 and its next one pays, in EUR only
    boolean cascading = random(2) == 0;
    Shop shop = shops.get(cascading ? CASCADING_SHOP : CONVERTING_SHOP);
    String currency = cascading || random(2) == 0 ? "EUR" : "JPY";
    String card = cascading ? CASCADES : APPROVED;
    int dice = random(10);
    Tracked authorized = pick(t -> t.shop == shop && t.certainly("AUTHORIZED") && t.asked != null);
    Tracked completed = pick(t -> t.shop == shop && t.type == PaymentType.DEPOSIT && t.certainly("COMPLETED"));
    if (dice < 2 && authorized != null) {
      convertedCapture(authorized);
    } else if (dice < 5 && completed != null && completed.asked == null) {
      // paid by the cascading shop's first terminal, in EUR: refunded there
      BigDecimal[] left = leftToRefund(completed);
      if (left[0].signum() > 0) {
        refund(completed, random(3) == 0 ? left[0] : partOf(left[0], completed.currency), left, null);
      }
    } else if (dice < 5 && completed != null) {
      convertedRefund(completed);
    } else if (cascading && dice < 6) {
      // a card the first terminal pays: in EUR, not converted
      deposit(shop, currency, randomAmount(currency, false), APPROVED, random(3) == 0, true);
    } else if (dice < 7) {
      BigDecimal amount = randomAmount(currency, true);
      JsonNode w = ok(post("/api/v1/payments", withdrawalBody(currency, amount, card), shop.key(), null),
          "converted withdrawal");
      assertThat(w.get("state").asText()).isEqualTo("PENDING");
      Tracked t = track(w.get("id").asText(), shop, PaymentType.WITHDRAWAL, "USD", toUsd(amount, currency), null,
          false, card, Set.of("COMPLETED"));
      t.asked = amount;
      t.askedCurrency = currency;
      t.announced.add("COMPLETED");
      note("converted withdrawal " + t);
    } else {
      BigDecimal amount = randomAmount(currency, false);
      convertedDeposit(shop, currency, amount, card, random(3) == 0);
    }
  }

  /** A deposit asked in {@code currency}, charged (and credited) in USD, converted, by the shop's USD terminal. */
  private void convertedDeposit(Shop shop, String currency, BigDecimal amount, String card, boolean preAuth) {
    JsonNode created = ok(post("/api/v1/payments", depositBody(currency, amount, card, preAuth), shop.key(),
        null), "converted deposit");
    Tracked t = track(created.get("id").asText(), shop, PaymentType.DEPOSIT, "USD", toUsd(amount, currency), null,
        preAuth, card, Set.of("CHECKOUT"));
    t.asked = amount;
    t.askedCurrency = currency;
    JsonNode done = ok(patch(t, null), "converted PATCH");
    assertThat(done.get("currency").asText()).isEqualTo("USD");
    assertThat(done.get("amount").decimalValue()).as("charged for " + amount + " " + currency)
        .isEqualByComparingTo(t.amount);
    settled(t, preAuth ? "AUTHORIZED" : "COMPLETED", null);
  }

  /** A shop checking its withdrawals' balance whose only connector is a USD terminal: it pays out converted only. */
  private Shop checkingConvertingShop() {
    var reference = gw.app.services().persistence().referenceData();
    Shop shop = shop("checking converting", false, true);
    long terminal = reference.createTerminal(new io.tollgate.application.port.out.ReferenceData.Terminal(0,
        gw.merchant, "Money checked USD terminal", "ACTIVE", "Sandbox", "SANDBOX", "Sandbox",
        List.of("DEPOSIT", "WITHDRAWAL", "REFUND"), java.time.Instant.now()));
    reference.createConnector(new io.tollgate.application.port.out.ReferenceData.Connector(0, shop.id().value(),
        terminal, null, "ACTIVE", "BASIC_CARD", "USD", 1, 100, null, null, null, null, null), java.time.Instant.now());
    return shop;
  }

  /**
   * A deposit or a withdrawal of the shop that checks its withdrawals' balance and pays out only
   * through its USD terminal. A withdrawal asked in USD is checked when it is created; one asked
   * in EUR or JPY holds nothing until it is routed (it is not checked in that currency, and held
   * there, unchecked, it took that balance below zero for the withdrawals checked in it), and is
   * then checked against, held in and paid out of USD, converted, or declined 1.10 when USD cannot
   * pay it, having held nothing anywhere. Each such withdrawal settles before the next step: USD
   * is never below zero after it, and the currency it was asked in is never touched.
   */
  private void checkedConvertedStep() throws InterruptedException {
    Shop shop = shops.get(CHECKING_CONVERTING_SHOP);
    String currency = CURRENCIES.get(random(CURRENCIES.size()));
    if (random(3) == 0) {
      BigDecimal amount = randomAmount(currency, false);
      if (currency.equals("USD")) {
        deposit(shop, currency, amount, APPROVED, false, true);
      } else {
        convertedDeposit(shop, currency, amount, APPROVED, false);
      }
      return;
    }
    String card = random(6) == 0 ? DECLINED : APPROVED;
    BigDecimal[] usd = available(shop, "USD");
    // mostly about what USD holds, a little less or more; else an amount of a usual payout
    BigDecimal amount = random(3) == 0 ? randomAmount(currency, true) : usd[0].max(BigDecimal.ONE)
        .multiply(BigDecimal.valueOf(50 + random(100))).movePointLeft(2)
        .divide(currency.equals("USD") ? BigDecimal.ONE : TO_USD.get(currency), scale(currency), RoundingMode.DOWN)
        .max(BigDecimal.ONE);
    if (currency.equals("USD")) {
      withdraw(shop, currency, amount, card, true);
      return;
    }
    BigDecimal converted = toUsd(amount, currency);
    BigDecimal[] askedBefore = gw.ledgerSum(shop.id(), currency);
    JsonNode w = ok(post("/api/v1/payments", withdrawalBody(currency, amount, card), shop.key(), null),
        "checked converted withdrawal");
    String what = "a withdrawal of " + amount + " " + currency + " (" + converted + " USD) of " + shop.name()
        + " with " + usd[0] + " to " + usd[1] + " USD available";
    assertThat(w.get("state").asText()).as(what + ", checked where it is paid: " + w).isEqualTo("PENDING");
    BigDecimal[] waiting = gw.ledgerSum(shop.id(), currency);
    assertThat(waiting[0]).as("available " + currency + " while it waits to be routed, after " + what)
        .isEqualByComparingTo(askedBefore[0]);
    assertThat(waiting[1]).as("reserved " + currency + " while it waits to be routed, after " + what)
        .isEqualByComparingTo(askedBefore[1]);
    String id = w.get("id").asText();
    JsonNode done = gw.awaitStateOtherThan(id, "PENDING", Duration.ofSeconds(20), shop.key());
    String state = done.get("state").asText();
    boolean routed = done.get("currency").asText().equals("USD");
    what += ": " + done;
    if (converted.compareTo(usd[0]) <= 0) {
      assertThat(routed).as("routed to USD, " + what).isTrue();
    }
    if (converted.compareTo(usd[1]) > 0) {
      assertThat(routed).as("routed to USD, " + what).isFalse();
    }
    Tracked t;
    if (routed) {
      assertThat(done.get("amount").decimalValue()).as("paid out for " + what).isEqualByComparingTo(converted);
      assertThat(state).as(what).isEqualTo(payoutEnd(converted, card));
      t = track(id, shop, PaymentType.WITHDRAWAL, "USD", converted, null, false, card, Set.of(state));
      t.asked = amount;
      t.askedCurrency = currency;
    } else {
      assertThat(state).as(what).isEqualTo("DECLINED");
      assertThat(done.get("errorCode").asText()).as(what).isEqualTo("1.10");
      assertThat(done.get("amount").decimalValue()).as(what).isEqualByComparingTo(amount);
      t = track(id, shop, PaymentType.WITHDRAWAL, currency, amount, null, false, card, Set.of("DECLINED"));
      t.released = true;
    }
    t.heldOnceRouted = true;
    t.announced.add(state);
    note("checked converted withdrawal " + t);
    BigDecimal[] asked = gw.ledgerSum(shop.id(), currency);
    assertThat(asked[0]).as("available " + currency + " once it is settled, after " + what)
        .isEqualByComparingTo(askedBefore[0]);
    assertThat(asked[1]).as("reserved " + currency + " once it is settled, after " + what)
        .isEqualByComparingTo(askedBefore[1]);
    assertThat(gw.ledgerSum(shop.id(), "USD")[0]).as("available USD once it is settled, after " + what)
        .isGreaterThanOrEqualTo(BigDecimal.ZERO);
  }

  // ---- payouts screened, and cascaded out of a converting terminal ---------------------------

  /**
   * A shop whose anti-fraud profile blacklists {@link #BLACKLISTED}, and whose USD terminal
   * converts and declines 4.02 on to its JPY terminal, which converts anew.
   */
  private Shop screeningShop() {
    var reference = gw.app.services().persistence().referenceData();
    reference.upsertCurrencyRate(new io.tollgate.application.port.out.ReferenceData.CurrencyRate("EUR", "JPY",
        EUR_TO_JPY, java.time.Instant.now()));
    Shop shop = shop("screening", false, false);
    long cards = gw.app.services().groups().create(gw.merchant, io.tollgate.domain.group.GroupKind.CARD,
        "Money payout blacklist", false).id();
    Answer added = gw.merchantPost("/merchant-api/v1/card-groups/" + cards + "/cards",
        "{\"cardNumbers\":[\"" + BLACKLISTED + "\"]}", merchantUser);
    assertThat(added.status()).as("a card blacklisted: " + added.body()).isEqualTo(201);
    long profile = reference.createAntifraudProfile(gw.merchant, "Money payout blacklist", "UTC",
        java.time.Instant.now());
    reference.addAntifraudRule(profile, new io.tollgate.application.port.out.ReferenceData.AntifraudRule(0,
        "CARD_BLACKLIST", cards, null, null));
    reference.attachAntifraudProfile(shop.id().value(), profile);
    long codes = doNotHonorCascades("Money screening cascading codes");
    connect(shop, terminal("Money screening USD terminal"), "USD", 1, codes);
    connect(shop, terminal("Money screening JPY terminal"), "JPY", 2, null);
    return shop;
  }

  /**
   * A shop whose first EUR terminal declines 4.02 on to its second, and moves the USD to EUR rate
   * to the other of {@link #USD_TO_EUR} while it declines a payout of the card that cascades.
   */
  private Shop rateMovingShop() {
    var reference = gw.app.services().persistence().referenceData();
    reference.upsertCurrencyRate(new io.tollgate.application.port.out.ReferenceData.CurrencyRate("USD", "EUR",
        usdToEur, java.time.Instant.now()));
    Shop shop = shop("rate moving", false, false);
    long first = terminal("Money rate moving EUR terminal");
    connect(shop, first, "EUR", 1, doNotHonorCascades("Money rate moving codes"));
    connect(shop, terminal("Money rate moved EUR terminal"), "EUR", 2, null);
    acquirer.meanwhile(first, payout -> {
      if (payout.cardNumber().equals(CASCADES)) {
        usdToEur = USD_TO_EUR.get(usdToEur.equals(USD_TO_EUR.get(0)) ? 1 : 0);
        reference.upsertCurrencyRate(new io.tollgate.application.port.out.ReferenceData.CurrencyRate("USD", "EUR",
            usdToEur, java.time.Instant.now()));
      }
    });
    return shop;
  }

  /** An error-code group holding 4.02 alone: a connector naming it cascades a Do Not Honor. */
  private static long doNotHonorCascades(String name) {
    long group = gw.app.services().groups().create(gw.merchant, io.tollgate.domain.group.GroupKind.ERROR_CODE,
        name, false).id();
    gw.app.services().persistence().groups().add(group,
        List.of(new io.tollgate.application.port.out.GroupRepository.Entry("4.02", "4.02")), "test",
        java.time.Instant.now());
    return group;
  }

  private static long terminal(String name) {
    return gw.app.services().persistence().referenceData().createTerminal(
        new io.tollgate.application.port.out.ReferenceData.Terminal(0, gw.merchant, name, "ACTIVE", "Sandbox",
            "SANDBOX", "Sandbox", List.of("DEPOSIT", "WITHDRAWAL", "REFUND"), java.time.Instant.now()));
  }

  /** A card connector of the shop to the terminal in {@code currency}, cascading the codes of group {@code codes}. */
  private static void connect(Shop shop, long terminal, String currency, int priority, Long codes) {
    gw.app.services().persistence().referenceData().createConnector(
        new io.tollgate.application.port.out.ReferenceData.Connector(0, shop.id().value(), terminal, null, "ACTIVE",
            "BASIC_CARD", currency, priority, 100, null, null, codes, null, null), java.time.Instant.now());
  }

  /** A payout of {@link #screenedAndCascadedPayouts}, as it is asked. */
  record Payout(Shop shop, String currency, BigDecimal amount, String card) {}

  /**
   * Payouts sent at once and paid out by both instances' workers while the next steps run. Of the
   * screening shop, in EUR: to a blacklisted card, declined 6.01 before any terminal sees it and
   * giving back what it held; to the card that cascades, held in USD, converted, where its USD
   * terminal declines it 4.02, then given back there and held in JPY, converted anew from the EUR
   * asked, and paid (or declined 3.28 over the sandbox's payout limit); to a card paid in USD.
   * Of the rate-moving shop: one in USD to the card that cascades, held in EUR at the rate it is
   * routed at, then again in EUR at the rate its first terminal moved it to while declining it;
   * beside it, payouts in EUR, paid or declined as they are held, from the same EUR balance.
   */
  private void screenedAndCascadedPayouts() throws Exception {
    Shop screening = shops.get(SCREENING_SHOP);
    Shop moving = shops.get(RATE_MOVING_SHOP);
    if (rateMover != null) {
      // the last rate move is made before this payout is routed: the model knows both its rates
      String state = gw.awaitStateOtherThan(rateMover.id, "PENDING", Duration.ofSeconds(20), moving.key())
          .get("state").asText();
      assertThat(state).as("moved on within 20 s: " + rateMover).isNotEqualTo("PENDING");
    }
    List<Payout> payouts = new ArrayList<>();
    int n = 2 + random(3);
    for (int i = 0; i < n; i++) {
      String card = i == 0 ? CASCADES : i == 1 ? BLACKLISTED : List.of(CASCADES, APPROVED, BLACKLISTED).get(random(3));
      payouts.add(new Payout(screening, "EUR", BigDecimal.valueOf(1 + random(8_000), 2), card));
    }
    payouts.add(new Payout(moving, "USD", BigDecimal.valueOf(100 + random(29_900), 2), CASCADES));
    for (int i = random(3); i > 0; i--) {
      payouts.add(new Payout(moving, "EUR", randomAmount("EUR", true), random(3) == 0 ? DECLINED : APPROVED));
    }
    BigDecimal routedAt = usdToEur;
    BigDecimal movedTo = USD_TO_EUR.get(routedAt.equals(USD_TO_EUR.get(0)) ? 1 : 0);
    List<Answer> answers = race(payouts.size(), i -> post("/api/v1/payments", withdrawalBody(
        payouts.get(i).currency(), payouts.get(i).amount(), payouts.get(i).card()), payouts.get(i).shop().key(), null));
    for (int i = 0; i < payouts.size(); i++) {
      Payout p = payouts.get(i);
      JsonNode w = ok(answers.get(i), "a payout of " + p);
      assertThat(w.get("state").asText()).as("a payout of " + p).isEqualTo("PENDING");
      String id = w.get("id").asText();
      Tracked t;
      if (p.card().equals(BLACKLISTED)) {
        t = track(id, p.shop(), PaymentType.WITHDRAWAL, p.currency(), p.amount(), null, false, p.card(),
            Set.of("DECLINED"));
      } else if (p.shop() == moving && p.currency().equals("EUR")) {
        t = track(id, p.shop(), PaymentType.WITHDRAWAL, p.currency(), p.amount(), null, false, p.card(),
            Set.of(payoutEnd(p.amount(), p.card())));
      } else if (p.shop() == moving) {
        BigDecimal paid = p.amount().multiply(movedTo).setScale(2, RoundingMode.HALF_EVEN);
        t = track(id, p.shop(), PaymentType.WITHDRAWAL, "EUR", paid, null, false, p.card(), Set.of("COMPLETED"));
        t.passed = p.amount().multiply(routedAt).setScale(2, RoundingMode.HALF_EVEN);
        t.passedCurrency = "EUR";
        rateMover = t;
      } else if (p.card().equals(APPROVED)) {
        t = track(id, p.shop(), PaymentType.WITHDRAWAL, "USD", toUsd(p.amount(), p.currency()), null, false,
            p.card(), Set.of("COMPLETED"));
      } else {
        BigDecimal yen = p.amount().multiply(EUR_TO_JPY).setScale(0, RoundingMode.HALF_EVEN);
        t = track(id, p.shop(), PaymentType.WITHDRAWAL, "JPY", yen, null, false, p.card(),
            Set.of(payoutEnd(yen, APPROVED)));
        t.passed = toUsd(p.amount(), p.currency());
        t.passedCurrency = "USD";
      }
      if (!t.currency.equals(p.currency())) {
        t.asked = p.amount();
        t.askedCurrency = p.currency();
      }
      t.announced.addAll(t.ends);
      note("screened or cascaded payout " + t);
    }
  }

  // ---- terminals that do not answer at once --------------------------------------------------

  /**
   * A payment whose acquirer leaves its first calls, or every call, unanswered: answered PENDING,
   * or timed out, having received it or not. A host-to-host deposit of a tardy card, a withdrawal
   * to one of a shop without approval, or a refund of a deposit such a card paid: each ends as the
   * acquirer decided, its money moved once however often it was asked, and one it never answers
   * stays PENDING, holding what a payout holds, neither paid out nor given back. A tardy card's
   * pre-authorization, once authorized, is captured or voided, which the acquirer leaves
   * unanswered at first too.
   */
  private void tardyStep(Shop shop, String currency) throws Exception {
    int dice = random(10);
    String card = random(5) == 0 ? TardyAcquirer.TARDY_DECLINED : TardyAcquirer.TARDY;
    Tracked paid = dice < 2 ? pick(t -> t.type == PaymentType.DEPOSIT && TardyAcquirer.TARDY.equals(t.card)
        && t.certainly("COMPLETED") && !t.awaitsBank) : null;
    Tracked authorized = dice >= 4 && dice < 8 ? pick(t -> t.preAuth && TardyAcquirer.TARDY.equals(t.card)
        && t.certainly("AUTHORIZED") && !t.awaitsBank) : null;
    if (paid != null) {
      BigDecimal[] left = leftToRefund(paid);
      if (left[0].signum() > 0) {
        refund(paid, partOf(left[0], paid.currency), left, null);
      }
    } else if (authorized != null) {
      tardyCaptureOrVoid(authorized);
    } else if (dice < 8) {
      Tracked t = tardyDeposit(shop, currency, card, dice >= 4);
      // one authorized at once, rather than over the next checks, is captured or voided sooner, or now
      if (t.awaitsBank && t.preAuth && random(2) == 0) {
        authorizedOnceOverdue(t);
        if (random(2) == 0) {
          tardyCaptureOrVoid(t);
        }
      }
    } else {
      // a shop without approval, plain or checking its balance
      withdraw(shops.get(random(2) == 0 ? 0 : 2), currency, randomAmount(currency, true), card, true);
    }
  }

  /**
   * A host-to-host deposit of a tardy card, or its pre-authorization: its PATCH is answered while
   * its terminal has not answered, PENDING or an error, and it stays PENDING at that terminal,
   * which a second PATCH cannot charge again, until the job for unanswered deposits has the
   * terminal's answer: COMPLETED, or AUTHORIZED, to be captured or voided by {@link #tardyStep}.
   */
  private Tracked tardyDeposit(Shop shop, String currency, String card, boolean preAuth) {
    BigDecimal amount = randomAmount(currency, false);
    JsonNode created = ok(post("/api/v1/payments", depositBody(currency, amount, card, preAuth), shop.key(), null),
        "tardy deposit");
    String id = created.get("id").asText();
    String end = TardyAcquirer.plan(SEED, id).never() ? "PENDING"
        : !card.equals(TardyAcquirer.TARDY) ? "DECLINED" : preAuth ? "AUTHORIZED" : "COMPLETED";
    Tracked t = track(id, shop, PaymentType.DEPOSIT, currency, amount, null, preAuth, card, Set.of(end));
    t.awaitsBank = end.equals("COMPLETED") || end.equals("AUTHORIZED");
    if (!end.equals("PENDING")) {
      t.announced.add(end);
    }
    Answer sent = patch(t, null);
    assertThat(sent.status() == 200 || sent.status() >= 500).as("a PATCH of " + t + " its terminal does not answer: "
        + sent.status() + " " + sent.body()).isTrue();
    if (sent.status() == 200) {
      assertThat(sent.json().at("/result/state").asText()).as("a PATCH of " + t + " its terminal does not answer")
          .isEqualTo("PENDING");
    }
    assertThat(state(t)).as(t + " once its terminal did not answer").isEqualTo("PENDING");
    assertThat(patch(t, null).status()).as("a second PATCH of " + t + " while its terminal has not answered")
        .isEqualTo(409);
    note("tardy deposit " + t + " answered " + sent.status());
    return t;
  }

  /**
   * Makes the answer of the tardy pre-authorization overdue, again after each look the job takes
   * that its terminal leaves unanswered, until it is AUTHORIZED. Its alone: the other tardy
   * deposits' overdue at the checks, the only points the model learns they were answered at.
   */
  private void authorizedOnceOverdue(Tracked t) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    String state;
    int rounds = 0;
    do {
      if (rounds++ % 3 == 0) {
        gw.database.jdbi().useHandle(h -> h.createUpdate("""
                UPDATE payments SET updated = now() - interval '3 minutes', checked = NULL
                 WHERE CAST(id AS text) = :id AND state = 'PENDING'""")
            .bind("id", t.id).execute());
      }
      Thread.sleep(100);
      state = state(t);
    } while (state.equals("PENDING") && System.nanoTime() < end);
    assertThat(state).as(t + " once its answer is overdue").isEqualTo("AUTHORIZED");
    t.awaitsBank = false;
    note("authorized at once " + t);
  }

  /**
   * Makes the answer of every tardy deposit still PENDING overdue, as it is two minutes after it
   * was sent: the job for unanswered deposits asks its terminal again.
   */
  private void unansweredDepositsOverdue() {
    String[] ids = tracked.values().stream()
        .filter(t -> t.type == PaymentType.DEPOSIT && TardyAcquirer.tardy(t.card)).map(t -> t.id)
        .toArray(String[]::new);
    if (ids.length == 0) {
      return;
    }
    gw.database.jdbi().useHandle(h -> h.createUpdate("""
            UPDATE payments SET updated = now() - interval '3 minutes', checked = NULL
             WHERE CAST(id AS text) = ANY(:ids) AND state = 'PENDING'""")
        .bind("ids", ids).execute());
  }

  /**
   * A capture or void of a tardy card's pre-authorization, as its merchant sends it, with its own
   * Idempotency-Key or none; {@code amount} what a capture captures, null for a void.
   */
  record Asking(Tracked payment, boolean capture, String body, String key, BigDecimal amount) {

    String end() {
      return capture ? "COMPLETED" : "CANCELLED";
    }

    Answer send() {
      return post("/api/v1/payments/" + payment.id + (capture ? "/capture" : "/void"), body, payment.shop.key(), key);
    }

    @Override
    public String toString() {
      return (capture ? "capture of " + amount + " " + body : "void") + (key == null ? "" : " keyed") + " of "
          + payment;
    }
  }

  /** Captures and voids their terminal has not answered, left to the job for unanswered captures and voids. */
  final List<Asking> asking = new ArrayList<>();
  /** How many tardy captures and voids the merchant had answered by making them again, and how many the job. */
  int answeredAgain;
  int answeredToJob;

  /**
   * A capture or void of a tardy card's pre-authorization, whose terminal leaves its first calls
   * unanswered (PENDING, or timed out, having reached it or not) as it did the authorization's.
   * Each is a 409 that says the terminal has not answered, or a 500; meanwhile every other
   * capture or void is a 409 for the step that waits. The merchant makes it again, as it is
   * told, until the terminal answers it; or makes it again a few times, or several times at
   * once, and leaves it to the job, which {@link #capturesAndVoidsAnswered} makes it run.
   */
  private void tardyCaptureOrVoid(Tracked t) throws Exception {
    int silent = TardyAcquirer.plan(SEED, t.id).silent();
    boolean capture = random(3) != 0;
    BigDecimal amount = !capture ? null : random(2) == 0 ? t.amount : partOf(t.amount, t.currency);
    // the full amount by the body that names none, or by the one that names it
    String body = !capture || amount.compareTo(t.amount) == 0 && random(2) == 0 ? "{}"
        : "{\"amount\":" + amount.toPlainString() + "}";
    Asking a = new Asking(t, capture, body, random(3) == 0 ? nextKey("tardy") : null, amount);
    int mode = random(3);
    if (mode == 2) {
      // sent several times at once: one asks, the others wait for its answer, or ask again once it has none
      int n = 2 + random(4);
      for (Answer answer : race(n, i -> a.send())) {
        unansweredOrDone(a, answer, true);
      }
    } else {
      unansweredOrDone(a, a.send(), false);
      assertThat(state(t)).as(t + " once its terminal left " + a + " unanswered").isEqualTo("AUTHORIZED");
      if (random(2) == 0) {
        Answer other = otherStep(a).send();
        assertThat(other.status()).as("another step of " + t + " while " + a + " waits: " + other.body())
            .isEqualTo(409);
        assertThat(other.json().get("message").asText()).as("another step while " + a + " waits")
            .startsWith(PaymentTransitions.ILLEGAL_WORKFLOW_STATE + ": ")
            .contains(capture ? "capture of " : "void").endsWith(" waits for the terminal's answer");
      }
    }
    // calls the terminal leaves unanswered, of the silent ones: the merchant's first, and its retries now
    int retries = mode == 0 ? silent - 1 : mode == 1 ? random(silent) : 0;
    for (int i = 0; i < retries; i++) {
      unansweredOrDone(a, a.send(), false);
    }
    if (mode != 0) {
      // the terminal answers the job, once the step is overdue: the payment is not picked until then
      t.awaitsBank = true;
      synchronized (t) {
        t.ends = Set.of(a.end());
        if (capture) {
          t.amount = amount;
        }
        t.announced.add(a.end());
      }
      asking.add(a);
      note("left to the job: " + a + " after " + (retries + 1) + " unanswered");
      return;
    }
    answeredAgain++;
    Answer answered = a.send();
    JsonNode done = ok(answered, a + ", the call after its terminal's " + silent + " silent ones");
    assertThat(done.get("state").asText()).as(a + " once answered").isEqualTo(a.end());
    settled(t, a.end(), amount);
    madeAgain(a);
  }

  /**
   * The answer to {@code a} while its terminal may not have answered it: a 409 that says so, or
   * a 500; with {@code raced}, also a 409 for the step another request asked and waits on, or the
   * payment, when one of the others had the terminal's answer.
   */
  private static void unansweredOrDone(Asking a, Answer answer, boolean raced) {
    String what = a + " its terminal has not answered: " + answer.status() + " " + answer.body();
    if (raced && answer.status() == 200) {
      assertThat(answer.json().at("/result/state").asText()).as(what).isEqualTo(a.end());
      if (a.capture()) {
        assertThat(answer.json().at("/result/amount").decimalValue()).as(what).isEqualByComparingTo(a.amount());
      }
      return;
    }
    assertThat(answer.status()).as(what).isIn(409, 500);
    if (answer.status() == 409) {
      String message = answer.json().get("message").asText();
      String unanswered = "The terminal has not answered the " + (a.capture() ? "capture of " : "void ");
      if (raced && !message.startsWith(unanswered)) {
        assertThat(message).as(what).endsWith(" waits for the terminal's answer");
      } else {
        assertThat(message).as(what).startsWith(unanswered);
      }
    }
  }

  /**
   * A capture or void of {@code a}'s payment other than {@code a}: the other step, or a capture
   * of another amount, or, after a partial one, the full capture of what was authorized (naming
   * no amount), whether {@code a} still waits or was answered.
   */
  private Asking otherStep(Asking a) {
    Tracked t = a.payment();
    Asking voided = new Asking(t, false, "{}", null, null);
    if (!a.capture()) {
      return new Asking(t, true, "{}", null, t.amount);
    }
    if (random(2) == 0) {
      return voided;
    }
    BigDecimal unit = BigDecimal.ONE.movePointLeft(scale(t.currency));
    if (a.amount().compareTo(t.amount) < 0 && random(2) == 0) {
      // the full capture, while a partial one waits or once it was answered
      return new Asking(t, true, "{}", null, t.amount);
    }
    BigDecimal other = a.amount().compareTo(unit) > 0 ? a.amount().subtract(unit)
        : a.amount().add(unit).compareTo(t.amount) <= 0 ? a.amount().add(unit) : null;
    return other == null ? voided : new Asking(t, true, "{\"amount\":" + other.toPlainString() + "}", null, other);
  }

  /**
   * Once the terminal answered {@code a}, the request made again, as the merchant was told to,
   * is answered the payment it completed or cancelled, with its key or without, and any other
   * capture or void is the 409 of a payment no longer AUTHORIZED.
   */
  private void madeAgain(Asking a) {
    Tracked t = a.payment();
    Answer again = a.send();
    assertThat(again.status()).as(a + " made again once answered: " + again.body()).isEqualTo(200);
    assertThat(again.json().at("/result/state").asText()).as(a + " made again once answered").isEqualTo(a.end());
    assertThat(again.json().at("/result/amount").decimalValue()).as(a + " made again once answered")
        .isEqualByComparingTo(t.amount);
    if (random(2) == 0) {
      Asking other = otherStep(a);
      Answer refused = other.send();
      assertThat(refused.status()).as(other + " after " + a + " was answered: " + refused.body()).isEqualTo(409);
    }
  }

  /**
   * Makes every capture and void left to the job overdue, as it is two minutes after it was
   * asked (and after the job last asked), until the terminal has answered each: the merchant
   * makes some again meanwhile, racing the job. Then each payment is the model's again, and
   * its request made again is answered it.
   */
  private void capturesAndVoidsAnswered() throws InterruptedException {
    if (asking.isEmpty()) {
      return;
    }
    List<Asking> all = List.copyOf(asking);
    unansweredCapturesAndVoidsOverdue();
    for (Asking a : all) {
      if (random(4) == 0) {
        unansweredOrDone(a, a.send(), true);
      }
    }
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    List<String> waiting;
    int rounds = 0;
    do {
      waiting = all.stream().filter(a -> !state(a.payment()).equals(a.end())).map(Asking::toString).toList();
      if (waiting.isEmpty()) {
        break;
      }
      // each look the job takes that the terminal leaves unanswered makes it wait two minutes more
      if (++rounds % 3 == 0) {
        unansweredCapturesAndVoidsOverdue();
      }
      Thread.sleep(100);
    } while (System.nanoTime() < end);
    assertThat(waiting).as("captures and voids the job has not had answered").isEmpty();
    for (Asking a : all) {
      asking.remove(a);
      answeredToJob++;
      a.payment().awaitsBank = false;
      note("answered to the job: " + a);
      madeAgain(a);
    }
  }

  /**
   * Makes the answer to every capture and void left to the job overdue: asked, and looked at,
   * minutes ago. Looked at still, as two minutes passing leaves it: a look since the ask is what
   * tells the gateway the merchant was answered that the terminal had not answered, and, gone,
   * the step would be answered as one whose first request was cut short.
   */
  private void unansweredCapturesAndVoidsOverdue() {
    String[] ids = asking.stream().map(a -> a.payment().id).toArray(String[]::new);
    gw.database.jdbi().useHandle(h -> h.createUpdate("""
            UPDATE payments SET asked_at = now() - interval '3 minutes',
                   checked = CASE WHEN checked >= asked_at THEN now() - interval '3 minutes' END
             WHERE CAST(id AS text) = ANY(:ids) AND state = 'AUTHORIZED' AND asked_operation IS NOT NULL""")
        .bind("ids", ids).execute());
  }

  /** A converted pre-authorization captured in full, in part in USD, or in part in the currency it was asked in. */
  private void convertedCapture(Tracked t) {
    int dice = random(3);
    BigDecimal captured;
    BigDecimal asked;
    String body;
    if (dice == 0) {
      captured = t.amount;
      asked = t.asked;
      body = "{}";
    } else if (dice == 1) {
      captured = partOf(t.amount, "USD");
      asked = t.asked.multiply(captured).divide(t.amount, scale(t.askedCurrency), RoundingMode.HALF_EVEN);
      body = "{\"amount\":" + captured + "}";
    } else {
      asked = partOf(t.asked, t.askedCurrency);
      captured = asked.multiply(t.amount).divide(t.asked, 2, RoundingMode.HALF_EVEN);
      body = "{\"amount\":" + asked + ",\"currency\":\"" + t.askedCurrency + "\"}";
    }
    Answer a = post("/api/v1/payments/" + t.id + "/capture", body, t.shop.key(), null);
    if (captured.signum() <= 0) {
      assertThat(a.status()).as("a capture of " + t + " that converts to nothing: " + a.body()).isEqualTo(400);
      return;
    }
    JsonNode done = ok(a, "converted capture " + body + " of " + t);
    assertThat(done.get("amount").decimalValue()).as("captured of " + t + " by " + body).isEqualByComparingTo(captured);
    assertThat(done.get("customerAmount").decimalValue()).as("captured as asked of " + t + " by " + body)
        .isEqualByComparingTo(asked);
    t.asked = asked;
    settled(t, "COMPLETED", captured);
  }

  /**
   * A converted deposit refunded in USD, or in the currency it was asked in at its own rate, or
   * over what is left. What is left as asked is what was asked less what the refunds in that
   * currency asked for, those in USD counted back at the rate; the refunds in that currency are
   * rounded together, each taking what they all asked for is worth less what they took before,
   * and the one that asks for all that is left takes all that is left.
   */
  private void convertedRefund(Tracked deposit) {
    BigDecimal left = leftToRefund(deposit)[0];
    boolean inAsked = random(2) == 0;
    String currency = inAsked ? deposit.askedCurrency : "USD";
    BigDecimal askedFor = BigDecimal.ZERO;
    BigDecimal taken = BigDecimal.ZERO;
    BigDecimal rest = BigDecimal.ZERO;
    for (Tracked r : tracked.values()) {
      if (r.type == PaymentType.REFUND && deposit.id.equals(r.parent) && !r.ends.contains("DECLINED")) {
        if (r.asked != null) {
          askedFor = askedFor.add(r.asked);
          taken = taken.add(r.amount);
        } else {
          rest = rest.add(r.amount);
        }
      }
    }
    BigDecimal leftAsked = !inAsked ? left : left.signum() <= 0 ? BigDecimal.ZERO : deposit.asked.subtract(askedFor)
        .subtract(rest.multiply(deposit.asked).divide(deposit.amount, java.math.MathContext.DECIMAL128))
        .setScale(scale(currency), RoundingMode.HALF_EVEN).max(BigDecimal.ZERO);
    int dice = random(5);
    BigDecimal requested = dice == 0 ? leftAsked.add(BigDecimal.ONE.movePointLeft(scale(currency)))
        : dice == 1 || leftAsked.signum() <= 0 ? leftAsked : partOf(leftAsked, currency);
    if (requested.signum() <= 0) {
      return;
    }
    BigDecimal back = !inAsked ? requested : requested.compareTo(leftAsked) == 0 ? left
        : askedFor.add(requested).multiply(deposit.amount).divide(deposit.asked, 2, RoundingMode.HALF_EVEN)
            .subtract(taken).min(left);
    Answer a = post("/api/v1/payments", refundBody(currency, requested, deposit.id), deposit.shop.key(), null);
    if (requested.compareTo(leftAsked) > 0 || back.signum() <= 0) {
      assertThat(a.status()).as("a refund of " + requested + " " + currency + " of " + deposit + " with " + leftAsked
          + " left: " + a.body()).isEqualTo(400);
      note("converted refund of " + requested + " " + currency + " refused for " + deposit);
      return;
    }
    JsonNode r = ok(a, "a refund of " + requested + " " + currency + " of " + deposit + " with " + leftAsked + " left");
    assertThat(r.get("currency").asText()).isEqualTo("USD");
    assertThat(r.get("amount").decimalValue()).as("taken back for " + requested + " " + currency + " of " + deposit)
        .isEqualByComparingTo(back);
    Tracked t = track(r.get("id").asText(), deposit.shop, PaymentType.REFUND, "USD", back, deposit.id, false, null,
        Set.of("COMPLETED"));
    if (inAsked) {
      t.asked = requested;
      t.askedCurrency = currency;
    }
    t.announced.add("COMPLETED");
    note("converted refund " + t);
  }

  /** A card verification, a pre-authorization of 0: authorized, never captured, voided, and never moves money. */
  private void verifyCard(Shop shop) {
    String currency = CURRENCIES.get(random(CURRENCIES.size()));
    Tracked t = deposit(shop, currency, BigDecimal.ZERO, APPROVED, true, true);
    if (!t.certainly("AUTHORIZED")) {
      return;
    }
    Answer captured = post("/api/v1/payments/" + t.id + "/capture", "{}", shop.key(), null);
    assertThat(captured.status()).as("capture of a card verification: " + captured.body()).isEqualTo(409);
    if (random(2) == 0) {
      JsonNode voided = ok(post("/api/v1/payments/" + t.id + "/void", "{}", shop.key(), null), "void");
      assertThat(voided.get("state").asText()).isEqualTo("CANCELLED");
      settled(t, "CANCELLED", null);
    }
  }

  /** A retried action with its key answers as the first time and does nothing again. */
  private void retryAction(Tracked t, String action, String body, String key, JsonNode first) {
    if (key == null) {
      Answer again = post("/api/v1/payments/" + t.id + "/" + action, body, t.shop.key(), null);
      assertThat(again.status()).as("a second " + action + " of " + t).isEqualTo(409);
      return;
    }
    Answer again = post("/api/v1/payments/" + t.id + "/" + action, body, t.shop.key(), key);
    assertThat(again.status()).as("retried " + action + " of " + t + ": " + again.body()).isEqualTo(200);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(again.json().at("/result/state").asText()).isEqualTo(first.get("state").asText());
    assertThat(again.json().at("/result/amount").decimalValue())
        .isEqualByComparingTo(first.get("amount").decimalValue());
  }

  private BigDecimal partOf(BigDecimal amount, String currency) {
    int scale = currency.equals("JPY") ? 0 : 2;
    BigDecimal unit = BigDecimal.ONE.movePointLeft(scale);
    if (amount.compareTo(unit) <= 0) {
      return amount;
    }
    BigDecimal units = amount.movePointRight(scale);
    return BigDecimal.valueOf(1 + (long) (random.nextDouble() * (units.longValue() - 1))).movePointLeft(scale)
        .setScale(scale, RoundingMode.UNNECESSARY);
  }

  private void settled(Tracked t, String state, BigDecimal amount) {
    synchronized (t) {
      t.ends = Set.of(state);
      if (amount != null) {
        t.amount = amount;
      }
      t.announced.add(state);
    }
    note(state.toLowerCase() + " " + t);
  }

  /** What is left to refund of a deposit: at least, and at most (declines not yet known). */
  private BigDecimal[] leftToRefund(Tracked deposit) {
    BigDecimal surely = deposit.amount;
    BigDecimal atMost = deposit.amount;
    for (Tracked r : tracked.values()) {
      if (r.type == PaymentType.REFUND && deposit.id.equals(r.parent)) {
        if (!r.released) {
          surely = surely.subtract(r.amount); // one to be declined holds its amount until the worker has
        }
        if (!r.ends.contains("DECLINED")) {
          atMost = atMost.subtract(r.amount);
        }
      }
    }
    return new BigDecimal[] {surely, atMost};
  }

  private void refundStep(Shop shop) {
    Tracked deposit = pick(t -> t.shop == shop && t.type == PaymentType.DEPOSIT && t.certainly("COMPLETED")
        && !t.awaitsBank);
    if (deposit == null) {
      String currency = CURRENCIES.get(random(CURRENCIES.size()));
      deposit = deposit(shop, currency, randomAmount(currency, false), APPROVED, false, true);
      if (!deposit.certainly("COMPLETED")) {
        return;
      }
    }
    if (random(10) == 0) {
      // a payment that is not this shop's completed deposit: another shop's, or a payout
      Tracked foreign = pick(t -> (t.shop != shop && t.type == PaymentType.DEPOSIT && t.certainly("COMPLETED"))
          || (t.shop == shop && t.type != PaymentType.DEPOSIT));
      if (foreign != null) {
        Answer a = post("/api/v1/payments", refundBody(foreign.currency, BigDecimal.ONE.movePointLeft(
            foreign.currency.equals("JPY") ? 0 : 2), foreign.id), shop.key(), null);
        assertThat(a.status()).as("a refund by " + shop.name() + " of " + foreign + ": " + a.body()).isEqualTo(400);
        note("refund refused of " + foreign + " by " + shop.name());
        return;
      }
    }
    BigDecimal[] left = leftToRefund(deposit);
    int dice = random(10);
    BigDecimal amount = dice < 2 ? left[1].add(partOf(deposit.amount, deposit.currency))
        : dice < 4 ? left[0] : partOf(left[0].signum() > 0 ? left[0] : deposit.amount, deposit.currency);
    if (amount.signum() <= 0) {
      return;
    }
    refund(deposit, amount, left, nextKeyOrNull("refund"));
  }

  private String nextKeyOrNull(String what) {
    return random(2) == 0 ? nextKey(what) : null;
  }

  /** A refund that must be taken when it fits what is surely left, and refused when it exceeds what may be. */
  private Answer refund(Tracked deposit, BigDecimal amount, BigDecimal[] left, String key) {
    Answer a = post("/api/v1/payments", refundBody(deposit.currency, amount, deposit.id), deposit.shop.key(), key);
    if (left != null && amount.compareTo(left[0]) <= 0) {
      assertThat(a.status()).as("a refund of " + amount + " with " + left[0] + " left of " + deposit + ": "
          + a.body()).isEqualTo(200);
    }
    if (left != null && amount.compareTo(left[1]) > 0) {
      assertThat(a.status()).as("a refund of " + amount + " with at most " + left[1] + " left of " + deposit)
          .isEqualTo(400);
    }
    assertThat(a.status()).as(a.body()).isIn(200, 400);
    if (a.status() == 200) {
      JsonNode r = a.json().get("result");
      assertThat(r.get("state").asText()).isEqualTo("PENDING");
      assertThat(r.get("amount").decimalValue()).isEqualByComparingTo(amount);
      String id = r.get("id").asText();
      // a refund goes back to the deposit's card through the acquirer that charged it, tardy or not
      Tracked t = track(id, deposit.shop, PaymentType.REFUND, deposit.currency, amount, deposit.id, false, null,
          Set.of(TardyAcquirer.tardy(deposit.card) ? payoutEnd(id, amount, TardyAcquirer.TARDY)
              : payoutEnd(amount, APPROVED)));
      if (!t.certainly("PENDING")) {
        t.announced.addAll(t.ends);
      }
      if (key != null) {
        idempotencyKeys.put(deposit.shop.id().value() + "/" + key, t.id);
        Answer again = post("/api/v1/payments", refundBody(deposit.currency, amount, deposit.id), deposit.shop.key(),
            key);
        assertThat(again.status()).as("a retried refund: " + again.body()).isEqualTo(200);
        assertThat(again.json().at("/result/id").asText()).isEqualTo(t.id);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
        Answer other = post("/api/v1/payments", refundBody(deposit.currency, amount.add(BigDecimal.ONE), deposit.id),
            deposit.shop.key(), key);
        assertThat(other.status()).as("the refund's key with another amount").isEqualTo(409);
      }
      note("refund " + t);
    } else {
      note("refund of " + amount + " refused for " + deposit);
    }
    return a;
  }

  private static String payoutEnd(BigDecimal amount, String card) {
    return amount.compareTo(PAYOUT_LIMIT) > 0 || !card.equals(APPROVED) ? "DECLINED" : "COMPLETED";
  }

  /** How payout {@code id} ends: as {@link #payoutEnd(BigDecimal, String)}, or PENDING if never answered. */
  private static String payoutEnd(String id, BigDecimal amount, String card) {
    if (TardyAcquirer.tardy(card) && TardyAcquirer.plan(SEED, id).never()) {
      return "PENDING";
    }
    return payoutEnd(amount, card.equals(TardyAcquirer.TARDY) ? APPROVED : card);
  }

  /** A shop's available balance in a currency: at least, and at most (declines not yet known). */
  private BigDecimal[] available(Shop shop, String currency) {
    BigDecimal surely = BigDecimal.ZERO;
    BigDecimal atMost = BigDecimal.ZERO;
    for (Tracked t : tracked.values()) {
      if (t.shop != shop || !t.currency.equals(currency)) {
        continue;
      }
      if (t.type == PaymentType.DEPOSIT) {
        if (t.certainly("COMPLETED") && !t.awaitsBank) {
          surely = surely.add(t.amount);
        }
        if (t.ends.contains("COMPLETED")) {
          atMost = atMost.add(t.amount);
        }
      } else {
        boolean released = t.ends.contains("DECLINED") || t.ends.contains("CANCELLED");
        if (!t.released) { // one the worker is to decline holds its amount until it has
          surely = surely.subtract(t.amount);
        }
        if (!released) {
          atMost = atMost.subtract(t.amount);
        }
      }
    }
    return new BigDecimal[] {surely, atMost};
  }

  /** A withdrawal; on a shop checking its balance, taken or declined 1.10 as the model's balance says. */
  Tracked withdraw(Shop shop, String currency, BigDecimal amount, String card, boolean strict) {
    BigDecimal[] available = strict && shop.checkBalance() ? available(shop, currency) : null;
    // drawn only on the test's own thread, so that a seed replays the same run
    String key = strict && random(3) == 0 ? nextKey("withdrawal") : null;
    JsonNode w = ok(post("/api/v1/payments", withdrawalBody(currency, amount, card), shop.key(), key),
        "withdrawal");
    String state = w.get("state").asText();
    String taken = shop.approval() ? "AWAITING_APPROVAL" : "PENDING";
    if (available != null && amount.compareTo(available[0]) <= 0) {
      assertThat(state).as("a withdrawal of " + amount + " " + currency + " from " + available[0] + " available")
          .isEqualTo(taken);
    }
    if (available != null && amount.compareTo(available[1]) > 0) {
      assertThat(state).as("a withdrawal of " + amount + " " + currency + " from at most " + available[1]).isEqualTo(
          "DECLINED");
    }
    if (!shop.checkBalance()) {
      assertThat(state).as("a withdrawal of a shop that does not check its balance").isEqualTo(taken);
    }
    assertThat(state).isIn(taken, "DECLINED");
    if (state.equals("DECLINED")) {
      assertThat(w.get("errorCode").asText()).isEqualTo("1.10");
    }
    String id = w.get("id").asText();
    Set<String> ends = state.equals("DECLINED") ? Set.of("DECLINED")
        : shop.approval() ? Set.of("AWAITING_APPROVAL") : Set.of(payoutEnd(id, amount, card));
    Tracked t = track(id, shop, PaymentType.WITHDRAWAL, currency, amount, null, false, card, ends);
    t.released = state.equals("DECLINED");
    if ((!shop.approval() || state.equals("DECLINED")) && !t.certainly("PENDING")) {
      t.announced.addAll(ends);
    }
    if (key != null) {
      idempotencyKeys.put(shop.id().value() + "/" + key, t.id);
    }
    if (!state.equals("DECLINED") && !shop.approval() && checkedAtTheDefaultTerminal(shop)) {
      routed(t, strict ? available(shop, currency) : null);
    }
    note("withdrawal " + t);
    return t;
  }

  /** Whether the shop checks its balance and has no connectors: the default terminal pays its payouts. */
  private boolean checkedAtTheDefaultTerminal(Shop shop) {
    return shop.checkBalance() && shop != shops.get(CHECKING_CONVERTING_SHOP);
  }

  /**
   * Waits until the worker has routed payout {@code t} to the default terminal, which checks the
   * balance again: a refund, never checked, may have taken it below zero since the payout was
   * created or while it waited for approval, and the payout is then declined 1.10, giving back
   * what it held. Waiting keeps the next step's refunds from racing that check. {@code available}
   * is the model's balance, this payout held, as it went to be routed (null when a burst's refunds
   * may move it meanwhile): surely at least zero pays it, surely below zero declines it.
   */
  private void routed(Tracked t, BigDecimal[] available) {
    long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    String[] row;
    while (true) {
      row = gw.database.jdbi().withHandle(h -> h.createQuery(
              "SELECT state, error_code, terminal_name FROM payments WHERE id = :id").bind("id", t.id)
          .map((rs, ctx) -> new String[] {rs.getString(1), rs.getString(2), rs.getString(3)}).one());
      if (!row[0].equals("PENDING") || row[2] != null || System.nanoTime() > end) {
        break;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    String what = t + ", " + row[0] + " " + row[1] + (available == null ? ""
        : " with " + available[0] + " to " + available[1] + " available");
    assertThat(row[0].equals("PENDING") && row[2] == null).as("routed within 20 s: " + what).isFalse();
    boolean declined = row[0].equals("DECLINED") && "1.10".equals(row[1]);
    if (available != null && available[0].signum() >= 0) {
      assertThat(declined).as("paid out of a balance not below zero: " + what).isFalse();
    }
    if (available != null && available[1].signum() < 0) {
      assertThat(declined).as("declined 1.10 for a balance below zero: " + what).isTrue();
    }
    if (declined) {
      synchronized (t) {
        t.announced.removeAll(t.ends);
        t.ends = Set.of("DECLINED");
        t.released = true;
        t.announced.add("DECLINED");
      }
      declinedWhenRouted.incrementAndGet();
      note("declined 1.10 when routed " + t);
    }
  }

  private void decideStep(Shop shop) {
    Tracked waiting = pick(t -> t.shop == shop && t.certainly("AWAITING_APPROVAL"));
    if (waiting == null) {
      Shop approving = shops.get(random(2) == 0 ? 1 : 3);
      String currency = CURRENCIES.get(random(CURRENCIES.size()));
      withdraw(approving, currency, randomAmount(currency, true), APPROVED, true);
      return;
    }
    String key = nextKeyOrNull("decision");
    if (random(3) == 0) {
      JsonNode rejected = ok(post("/api/v1/payments/" + waiting.id + "/reject", "{\"rejectReason\":\"KYC\"}",
          shop.key(), key), "reject");
      assertThat(rejected.get("state").asText()).isEqualTo("CANCELLED");
      assertThat(rejected.get("errorCode").asText()).isEqualTo("8.00");
      waiting.released = true;
      settled(waiting, "CANCELLED", null);
      retryAction(waiting, "reject", "{\"rejectReason\":\"KYC\"}", key, rejected);
    } else {
      BigDecimal[] held = checkedAtTheDefaultTerminal(shop) ? available(shop, waiting.currency) : null;
      JsonNode approved = ok(post("/api/v1/payments/" + waiting.id + "/approve", "{}", shop.key(), key), "approve");
      assertThat(approved.get("state").asText()).isEqualTo("PENDING");
      String end = payoutEnd(waiting.amount, waiting.card);
      settled(waiting, end, null);
      if (key != null) {
        Answer again = post("/api/v1/payments/" + waiting.id + "/approve", "{}", shop.key(), key);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
      }
      if (held != null) {
        routed(waiting, held);
      }
    }
  }

  /**
   * One Idempotency-Key sent again: the same body answers the first payment again and creates
   * nothing; another body is a 409; several at once create one payment.
   */
  private void idempotentRetries(Shop shop, String currency) throws Exception {
    String key = nextKey("retry");
    BigDecimal amount = randomAmount(currency, false);
    boolean deposit = random(2) == 0 || shop.checkBalance();
    String body = deposit ? depositBody(currency, amount, APPROVED, false)
        : withdrawalBody(currency, amount, APPROVED);
    int before = payments(shop);
    int copies = 1 + random(6);
    // now and then some copies at once with another body: the first to claim the key decides which are 409s
    boolean mixed = copies > 1 && random(3) == 0;
    String otherAtOnce = deposit ? depositBody(currency, amount.add(BigDecimal.TEN), APPROVED, false)
        : withdrawalBody(currency, amount.add(BigDecimal.TEN), APPROVED);
    String sent = body;
    String sentOther = otherAtOnce;
    List<Answer> all = race(copies, i -> post("/api/v1/payments", mixed && i % 2 == 1 ? sentOther : sent,
        shop.key(), key));
    List<Answer> answers = new ArrayList<>();
    List<Answer> others = new ArrayList<>();
    for (int i = 0; i < copies; i++) {
      (mixed && i % 2 == 1 ? others : answers).add(all.get(i));
    }
    if (mixed && answers.stream().allMatch(a -> a.status() == 409)) {
      // the other body came first: it made the payment, and the model's body is the one refused
      List<Answer> swap = answers;
      answers = others;
      others = swap;
      amount = amount.add(BigDecimal.TEN);
      body = sentOther;
    }
    for (Answer a : others) {
      assertThat(a.status()).as("the key at once with another body: " + a.body()).isEqualTo(409);
    }
    Set<String> ids = new HashSet<>();
    int fresh = 0;
    for (Answer a : answers) {
      assertThat(a.status()).as("one key sent " + copies + " times at once: " + a.body()).isEqualTo(200);
      ids.add(a.json().at("/result/id").asText());
      if (a.header("Idempotent-Replayed") == null) {
        fresh++;
      }
    }
    assertThat(ids).as("payments made by one Idempotency-Key").hasSize(1);
    assertThat(fresh).as("answers that were not replays").isEqualTo(1);
    String id = ids.iterator().next();
    JsonNode first = answers.get(0).json().get("result");
    Tracked t = deposit
        ? track(id, shop, PaymentType.DEPOSIT, currency, amount, null, false, APPROVED, Set.of("CHECKOUT"))
        : track(id, shop, PaymentType.WITHDRAWAL, currency, amount, null, false, APPROVED,
            Set.of(shop.approval() ? "AWAITING_APPROVAL" : payoutEnd(amount, APPROVED)));
    if (!deposit && !shop.approval()) {
      t.announced.addAll(t.ends);
    }
    assertThat(first.get("state").asText()).isIn("CHECKOUT", "PENDING", "AWAITING_APPROVAL");
    idempotencyKeys.put(shop.id().value() + "/" + key, id);

    String other = deposit ? depositBody(currency, amount.add(BigDecimal.ONE), APPROVED, false)
        : withdrawalBody(currency, amount.add(BigDecimal.ONE), APPROVED);
    assertThat(post("/api/v1/payments", other, shop.key(), key).status())
        .as("the key again with another body").isEqualTo(409);
    Answer again = post("/api/v1/payments", body, shop.key(), key);
    assertThat(again.status()).isEqualTo(200);
    assertThat(again.json().at("/result/id").asText()).isEqualTo(id);
    assertThat(again.header("Idempotent-Replayed")).isEqualTo("true");
    assertThat(payments(shop)).as("payments of " + shop.name() + " after one key's retries").isEqualTo(before + 1);
    if (deposit && random(2) == 0) {
      JsonNode paid = ok(patch(id, shop, null), "patch");
      assertThat(paid.get("state").asText()).isEqualTo("COMPLETED");
      settled(t, "COMPLETED", null);
      Answer replayed = post("/api/v1/payments", body, shop.key(), key);
      assertThat(replayed.json().at("/result/id").asText()).isEqualTo(id);
      assertThat(payments(shop)).isEqualTo(before + 1);
    }
    note("idempotent retries of " + t);
  }

  /** Refunds of one deposit at once: never more than the deposit, and each refused one did not fit. */
  private void refundRace(Shop shop, String currency) throws Exception {
    Tracked deposit = deposit(shop, currency, randomAmount(currency, false), APPROVED, false, true);
    if (!deposit.certainly("COMPLETED")) {
      return;
    }
    int n = 4 + random(5);
    List<BigDecimal> amounts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      amounts.add(random(4) == 0 ? deposit.amount : partOf(deposit.amount.divide(BigDecimal.valueOf(2),
          currency.equals("JPY") ? 0 : 2, RoundingMode.DOWN).max(BigDecimal.ONE.movePointLeft(
              currency.equals("JPY") ? 0 : 2)), currency));
    }
    List<Answer> answers = race(n, i -> post("/api/v1/payments", refundBody(currency, amounts.get(i), deposit.id),
        shop.key(), null));
    BigDecimal taken = BigDecimal.ZERO;
    List<BigDecimal> refused = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Answer a = answers.get(i);
      assertThat(a.status()).as("a refund racing others: " + a.body()).isIn(200, 400);
      if (a.status() == 200) {
        taken = taken.add(amounts.get(i));
        Tracked t = track(a.json().at("/result/id").asText(), shop, PaymentType.REFUND, currency, amounts.get(i),
            deposit.id, false, null, Set.of(payoutEnd(amounts.get(i), APPROVED)));
        t.announced.addAll(t.ends);
      } else {
        refused.add(amounts.get(i));
      }
    }
    // one over the sandbox's payout limit may be declined while the others wait, and give its room to them
    BigDecimal paid = answers.stream().filter(a -> a.status() == 200).map(a -> a.json().at("/result/amount")
        .decimalValue()).filter(a -> a.compareTo(PAYOUT_LIMIT) <= 0).reduce(BigDecimal.ZERO, BigDecimal::add);
    assertThat(paid).as("refunds of " + deposit + " taken at once, to be paid: " + amounts)
        .isLessThanOrEqualTo(deposit.amount);
    for (BigDecimal r : refused) {
      assertThat(r).as("a refused refund of " + deposit + " with " + taken + " taken by the others")
          .isGreaterThan(deposit.amount.subtract(taken));
    }
    note("refund race on " + deposit + ": " + amounts + " took " + taken);
    // and one more over what is left, refused
    BigDecimal[] left = leftToRefund(deposit);
    refund(deposit, left[1].add(BigDecimal.ONE), left, null);
  }

  /** Withdrawals at once from a shop checking its balance never take more than it holds. */
  private void withdrawalRace(Shop any, String currency) throws Exception {
    Shop shop = shops.get(random(2) == 0 ? 2 : 3);
    BigDecimal[] before = available(shop, currency);
    int n = 4 + random(5);
    List<BigDecimal> amounts = new ArrayList<>();
    BigDecimal base = before[0].signum() > 0 ? before[0] : randomAmount(currency, true);
    for (int i = 0; i < n; i++) {
      amounts.add(partOf(base.divide(BigDecimal.valueOf(2), currency.equals("JPY") ? 0 : 2, RoundingMode.DOWN)
          .max(BigDecimal.ONE), currency));
    }
    List<Answer> answers = race(n, i -> post("/api/v1/payments", withdrawalBody(currency, amounts.get(i), APPROVED),
        shop.key(), null));
    BigDecimal taken = BigDecimal.ZERO;
    List<BigDecimal> refused = new ArrayList<>();
    List<Tracked> pending = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      JsonNode w = ok(answers.get(i), "a withdrawal racing others");
      String state = w.get("state").asText();
      boolean declined = state.equals("DECLINED");
      if (declined) {
        assertThat(w.get("errorCode").asText()).isEqualTo("1.10");
        refused.add(amounts.get(i));
      } else {
        taken = taken.add(amounts.get(i));
      }
      Tracked t = track(w.get("id").asText(), shop, PaymentType.WITHDRAWAL, currency, amounts.get(i), null, false,
          APPROVED, declined ? Set.of("DECLINED") : shop.approval() ? Set.of("AWAITING_APPROVAL")
              : Set.of(payoutEnd(amounts.get(i), APPROVED)));
      t.released = declined;
      if (declined || !shop.approval()) {
        t.announced.addAll(t.ends);
      }
      if (!declined && !shop.approval()) {
        pending.add(t);
      }
    }
    BigDecimal[] held = available(shop, currency);
    pending.forEach(t -> routed(t, held));
    // one over the sandbox's payout limit may be declined while the others wait, and give its room to them
    BigDecimal paid = BigDecimal.ZERO;
    for (int i = 0; i < n; i++) {
      if (!answers.get(i).json().at("/result/state").asText().equals("DECLINED")
          && amounts.get(i).compareTo(PAYOUT_LIMIT) <= 0) {
        paid = paid.add(amounts.get(i));
      }
    }
    assertThat(paid).as("withdrawals at once from " + shop.name() + " holding at most " + before[1] + " " + currency
        + ", to be paid").isLessThanOrEqualTo(before[1].max(BigDecimal.ZERO));
    for (BigDecimal r : refused) {
      assertThat(r).as("a withdrawal declined 1.10 with " + taken + " taken by the others of " + before[0])
          .isGreaterThan(before[0].subtract(taken));
    }
    note("withdrawal race on " + shop.name() + " " + currency + ": " + amounts + " took " + taken);
  }

  /** Captures and voids of one pre-authorization, decisions on one withdrawal, or PATCHes of one deposit, at once. */
  private void actionRace(Shop shop, String currency) throws Exception {
    int n = 4 + random(5);
    int kind = random(3);
    if (kind == 0) {
      Tracked auth = deposit(shop, currency, randomAmount(currency, false), APPROVED, true, true);
      if (!auth.certainly("AUTHORIZED")) {
        return;
      }
      if (random(3) == 0) {
        // one capture, its answer lost and sent again and again at once with its key
        String key = nextKey("capture");
        BigDecimal part = partOf(auth.amount, currency);
        List<Answer> answers = race(n, i -> post("/api/v1/payments/" + auth.id + "/capture",
            "{\"amount\":" + part + "}", shop.key(), key));
        long fresh = answers.stream().filter(a -> a.header("Idempotent-Replayed") == null).count();
        for (Answer a : answers) {
          assertThat(a.status()).as("one capture sent " + n + " times at once: " + a.body()).isEqualTo(200);
          assertThat(a.json().at("/result/amount").decimalValue()).isEqualByComparingTo(part);
        }
        assertThat(fresh).as("captures of " + auth + " that were not replays").isEqualTo(1);
        settled(auth, "COMPLETED", part);
        return;
      }
      List<BigDecimal> parts = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        parts.add(i % 3 == 2 ? null : partOf(auth.amount, currency));
      }
      List<Answer> answers = race(n, i -> parts.get(i) == null
          ? post("/api/v1/payments/" + auth.id + "/void", "{}", shop.key(), null)
          : post("/api/v1/payments/" + auth.id + "/capture", "{\"amount\":" + parts.get(i) + "}", shop.key(), null));
      int winner = oneWinner(answers, "captures and voids of " + auth);
      JsonNode won = answers.get(winner).json().get("result");
      if (parts.get(winner) == null) {
        assertThat(won.get("state").asText()).isEqualTo("CANCELLED");
        settled(auth, "CANCELLED", null);
      } else {
        assertThat(won.get("state").asText()).isEqualTo("COMPLETED");
        settled(auth, "COMPLETED", parts.get(winner));
      }
    } else if (kind == 1) {
      Shop approving = shops.get(random(2) == 0 ? 1 : 3);
      Tracked w = withdraw(approving, currency, randomAmount(currency, true), APPROVED, true);
      if (!w.certainly("AWAITING_APPROVAL")) {
        return;
      }
      BigDecimal[] held = checkedAtTheDefaultTerminal(approving) ? available(approving, currency) : null;
      List<Answer> answers = race(n, i -> post("/api/v1/payments/" + w.id + (i % 2 == 0 ? "/approve" : "/reject"),
          "{}", approving.key(), null));
      int winner = oneWinner(answers, "decisions on " + w);
      w.released = winner % 2 == 1;
      settled(w, winner % 2 == 0 ? payoutEnd(w.amount, w.card) : "CANCELLED", null);
      if (winner % 2 == 0 && held != null) {
        routed(w, held);
      }
    } else {
      BigDecimal amount = randomAmount(currency, false);
      JsonNode created = ok(post("/api/v1/payments", depositBody(currency, amount, APPROVED, false), shop.key(),
          null), "deposit");
      Tracked t = track(created.get("id").asText(), shop, PaymentType.DEPOSIT, currency, amount, null, false, APPROVED,
          Set.of("CHECKOUT"));
      // without a key exactly one executes it; with one key, one executes it and the rest are its answer again
      String key = random(2) == 0 ? nextKey("patch") : null;
      List<Answer> answers = race(n, i -> patch(t, key));
      if (key == null) {
        int winner = oneWinner(answers, "host-to-host PATCHes of " + t);
        assertThat(answers.get(winner).json().at("/result/state").asText()).isEqualTo("COMPLETED");
      } else {
        for (Answer a : answers) {
          assertThat(a.status()).as("one PATCH of " + t + " sent at once with its key: " + a.body()).isEqualTo(200);
          assertThat(a.json().at("/result/state").asText()).isEqualTo("COMPLETED");
        }
        assertThat(answers.stream().filter(a -> a.header("Idempotent-Replayed") == null))
            .as("PATCHes with one key that were not replays").hasSize(1);
      }
      settled(t, "COMPLETED", null);
    }
  }

  private static int oneWinner(List<Answer> answers, String what) {
    int winner = -1;
    for (int i = 0; i < answers.size(); i++) {
      Answer a = answers.get(i);
      assertThat(a.status()).as(what + ": " + a.body()).isIn(200, 409);
      if (a.status() == 200) {
        assertThat(winner).as(what + ": a second one succeeded").isEqualTo(-1);
        winner = i;
      }
    }
    assertThat(winner).as(what + ": none succeeded").isNotEqualTo(-1);
    return winner;
  }

  /** Unrelated deposits and withdrawals of several shops at once. */
  private void mixedBurst() throws Exception {
    int n = 4 + random(5);
    List<Callable<Tracked>> calls = new ArrayList<>();
    Set<Tracked> taken = new HashSet<>();
    for (int i = 0; i < n; i++) {
      Shop shop = shops.get(random(REGULAR_SHOPS));
      String currency = CURRENCIES.get(random(CURRENCIES.size()));
      int kind = random(6);
      // each payment acted on by one call only: which one wins is then no question
      // none of the shop that checks its converted withdrawals, whose balance is held to never go below zero
      Tracked deposit = kind == 3 ? pick(t -> t.type == PaymentType.DEPOSIT && t.certainly("COMPLETED")
          && !t.awaitsBank && !taken.contains(t) && t.shop != shops.get(CHECKING_CONVERTING_SHOP)) : null;
      Tracked authorized = kind == 4 ? pick(t -> t.certainly("AUTHORIZED") && t.amount.signum() > 0
          && t.asked == null && !taken.contains(t) && !TardyAcquirer.tardy(t.card)) : null;
      if (deposit != null) {
        taken.add(deposit);
        BigDecimal[] left = leftToRefund(deposit);
        BigDecimal amount = partOf(left[0].signum() > 0 ? left[0] : deposit.amount, deposit.currency);
        calls.add(() -> {
          refund(deposit, amount, null, null);
          return deposit;
        });
      } else if (authorized != null) {
        taken.add(authorized);
        BigDecimal part = partOf(authorized.amount, authorized.currency);
        calls.add(() -> {
          JsonNode captured = ok(post("/api/v1/payments/" + authorized.id + "/capture", "{\"amount\":" + part + "}",
              authorized.shop.key(), null), "capture");
          assertThat(captured.get("state").asText()).isEqualTo("COMPLETED");
          settled(authorized, "COMPLETED", part);
          return authorized;
        });
      } else {
        // deposits, and withdrawals of every shop: a checking shop's take or decline 1.10 as the others leave it
        boolean pay = kind < 3;
        BigDecimal amount = randomAmount(currency, !pay);
        String card = pay ? (random(4) == 0 ? DECLINED : APPROVED) : APPROVED;
        Random own = new Random(random.nextLong());
        calls.add(() -> pay ? parallelDeposit(shop, currency, amount, card, own)
            : withdraw(shop, currency, amount, card, false));
      }
    }
    List<Future<Tracked>> running = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    for (Callable<Tracked> c : calls) {
      running.add(pool.submit(() -> {
        go.await();
        return c.call();
      }));
    }
    go.countDown();
    for (Future<Tracked> f : running) {
      f.get(60, TimeUnit.SECONDS);
    }
  }

  /** A deposit paid with a card that is decided at once, from a burst's thread. */
  private Tracked parallelDeposit(Shop shop, String currency, BigDecimal amount, String card, Random own) {
    JsonNode created = ok(post("/api/v1/payments", depositBody(currency, amount, card, false), shop.key(), null),
        "deposit");
    Tracked t = track(created.get("id").asText(), shop, PaymentType.DEPOSIT, currency, amount, null, false, card,
        Set.of("CHECKOUT"));
    JsonNode done = ok(patch(t, null), "patch");
    String expected = card.equals(APPROVED) ? "COMPLETED" : "DECLINED";
    assertThat(done.get("state").asText()).isEqualTo(expected);
    settled(t, expected, null);
    return t;
  }

  private <T> List<T> race(int n, Callable<T> call) throws Exception {
    return race(n, i -> call.call());
  }

  interface Indexed<T> {
    T call(int i) throws Exception;
  }

  private <T> List<T> race(int n, Indexed<T> call) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> running = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int index = i;
      running.add(pool.submit(() -> {
        go.await();
        return call.call(index);
      }));
    }
    go.countDown();
    List<T> results = new ArrayList<>();
    for (Future<T> f : running) {
      results.add(f.get(60, TimeUnit.SECONDS));
    }
    return results;
  }

  private Tracked track(String id, Shop shop, PaymentType type, String currency, BigDecimal amount, String parent,
      boolean preAuth, String card, Set<String> ends) {
    Tracked t = new Tracked(id, shop, type, currency, amount, parent, preAuth, card, ends);
    Tracked earlier = tracked.putIfAbsent(id, t);
    assertThat(earlier).as("payment " + id + " answered as new a second time").isNull();
    return t;
  }

  private Tracked pick(java.util.function.Predicate<Tracked> which) {
    List<Tracked> candidates = tracked.values().stream().filter(which).sorted(
        java.util.Comparator.comparingLong(t -> t.seq)).toList();
    return candidates.isEmpty() ? null : candidates.get(random(candidates.size()));
  }

  private int random(int bound) {
    return random.nextInt(bound);
  }

  private void note(String what) {
    log.add(what);
  }

  private static String state(Tracked t) {
    return get("/api/v1/payments/" + t.id, t.shop.key()).json().at("/result/state").asText();
  }

  private static int payments(Shop shop) {
    return gw.database.jdbi().withHandle(h -> h.createQuery("SELECT count(*) FROM payments WHERE shop_id = :s")
        .bind("s", shop.id().value()).mapTo(Integer.class).one());
  }

  /**
   * The bank transfer deposits the sandbox bank has settled, and the tardy deposits and
   * pre-authorizations their acquirer has answered, as the model learns of them.
   */
  private void settledBankTransfers() {
    for (Tracked t : tracked.values()) {
      if (t.awaitsBank && t.certainly(state(t))) {
        t.awaitsBank = false;
      }
    }
  }

  // ---- webhooks -----------------------------------------------------------------------------

  /**
   * The receiver's answer to a delivery. Some events are refused a few times first, answered a
   * 4xx or 5xx, which the gateway must retry; a few early final ones (a payment's last) every
   * time, until the gateway gives up on them and {@link #resendGivenUpWebhooks} sends them again.
   * The plan is drawn per event from the seed, the payment and its state, so every attempt of an
   * event follows one plan, whichever instance sends it and whenever.
   */
  private int answer(Map<String, String> headers, byte[] body) {
    String event = headers.get("webhook-id");
    JsonNode payment;
    try {
      payment = TestGateway.JSON.readTree(body);
    } catch (java.io.IOException unreadable) {
      return 200; // the receiver reports a body unlike the document, and the checks a payment unknown
    }
    if (event == null || !payment.hasNonNull("id")) {
      return 200;
    }
    int attempt = attempts.computeIfAbsent(event, e -> new AtomicInteger()).incrementAndGet();
    String state = payment.path("state").asText();
    Random plan = new Random(SEED * 31 + (payment.get("id").asText() + " " + state).hashCode());
    boolean forGood = plan.nextInt(8) == 0;
    int dice = plan.nextInt(100);
    // three refusals at most: a fourth and fifth attempt are left for a delivery a busy machine fails
    int refusals = dice < 75 ? 0 : dice < 90 ? 1 : dice < 97 ? 2 : 3;
    int refusal = REFUSALS.get(plan.nextInt(REFUSALS.size()));
    if (attempt == 1 && forGood && refusingForGood && FINAL_STATES.contains(state)) {
      refusedForGood.add(event);
    }
    return refusedForGood.contains(event) || attempt <= refusals ? refusal : 200;
  }

  static Answer merchantGet(String path) {
    return gw.send(HttpRequest.newBuilder(uri(path)).GET().header("Authorization", TestGateway.basic(merchantUser)));
  }

  static Answer merchantPost(String path) {
    return gw.send(HttpRequest.newBuilder(uri(path)).POST(HttpRequest.BodyPublishers.noBody())
        .header("Authorization", TestGateway.basic(merchantUser)));
  }

  /** Asks the merchant API to send the payment's latest webhook event again. */
  private static void resend(Tracked t) {
    Answer a = merchantPost("/merchant-api/v1/payments/" + t.id + "/webhooks/resend");
    assertThat(a.status()).as("resend of the webhook of " + t + ": " + a.body()).isEqualTo(202);
  }

  /** One delivery the receiver has answered, read. */
  record Taken(String event, String payment, String state, int status, WebhookReceiver.Received received) {
    boolean accepted() {
      return status / 100 == 2;
    }
  }

  private static List<Taken> taken() {
    List<Taken> all = new ArrayList<>();
    for (WebhookReceiver.Received r : hooks.received()) {
      JsonNode body;
      try {
        body = TestGateway.JSON.readTree(r.body());
      } catch (java.io.IOException e) {
        throw new AssertionError("a webhook that is no JSON: " + r.bodyText(), e);
      }
      all.add(new Taken(r.header("Webhook-Id"), body.path("id").asText(), body.path("state").asText(), r.status(),
          r));
    }
    return all;
  }

  /**
   * Asks the merchant API to resend the last webhook of {@code n} settled payments whose last
   * event the receiver has taken: each is to be taken again, checked with the others at the end.
   */
  private void resendSettledWebhooks(int n) {
    Map<String, Long> acceptedTimes = new HashMap<>();
    Map<String, String> lastEvent = new HashMap<>();
    for (Taken d : taken()) {
      if (d.accepted()) {
        acceptedTimes.merge(d.event(), 1L, Long::sum);
        lastEvent.put(d.payment() + " " + d.state(), d.event());
      }
    }
    List<Tracked> candidates = tracked.values().stream().filter(t -> {
      synchronized (t) {
        Set<String> ends = t.ends;
        if (ends.size() != 1 || !FINAL_STATES.containsAll(ends) || t.announced.isEmpty()) {
          return false;
        }
        String last = t.announced.get(t.announced.size() - 1);
        String event = lastEvent.get(t.id + " " + last);
        return ends.contains(last) && event != null && !resent.containsKey(event);
      }
    }).sorted(java.util.Comparator.comparingLong(t -> t.seq)).toList();
    for (int i = 0; i < n && !candidates.isEmpty(); i++) {
      Tracked t = candidates.get(webhookRandom.nextInt(candidates.size()));
      String state = t.ends.iterator().next();
      String event = lastEvent.get(t.id + " " + state);
      if (resent.putIfAbsent(event, new Resent(t, state, acceptedTimes.get(event), false)) == null) {
        resend(t);
        note("webhook " + event + " resent of " + t);
      }
    }
  }

  record EventRecord(String id, String payment, String state, String status, int attempts) {}

  private static Map<String, EventRecord> eventRecords(Set<String> ids) {
    Map<String, EventRecord> found = new HashMap<>();
    gw.database.jdbi().useHandle(h -> h.createQuery("""
            SELECT CAST(id AS text) id, payment_id, payment_state, status, attempts FROM webhook_events
             WHERE CAST(id AS text) = ANY(:ids)""")
        .bind("ids", ids.toArray(new String[0]))
        .map((rs, ctx) -> new EventRecord(rs.getString("id"), rs.getString("payment_id"),
            rs.getString("payment_state"), rs.getString("status"), rs.getInt("attempts")))
        .forEach(e -> found.put(e.id(), e)));
    return found;
  }

  /**
   * The events the receiver refused every time: once the gateway has tried one as often as its
   * schedule says and marked it failed, which its delivery log shows too, the receiver takes it
   * again and the test resends it, to be delivered as any other. Mid-run only those failed by
   * then; at the end every one, waiting for the schedule to run out.
   */
  private void resendGivenUpWebhooks(boolean all) throws InterruptedException {
    int tries = RETRY_SCHEDULE.size() + 1;
    // refused for good only in the run's first quarter: the schedule runs out well within this
    long end = System.nanoTime() + Duration.ofSeconds(45).toNanos();
    while (!refusedForGood.isEmpty()) {
      for (EventRecord e : eventRecords(Set.copyOf(refusedForGood)).values()) {
        if (!e.status().equals("FAILED")) {
          continue;
        }
        Tracked t = tracked.get(e.payment());
        assertThat(t).as("payment " + e.payment() + " of a webhook event the model does not know").isNotNull();
        String what = "webhook " + e.id() + " of " + t + " in " + e.state() + ", refused every time";
        assertThat(attempts.get(e.id()).get()).as("attempts of " + what + " until the gateway gave up")
            .isEqualTo(tries);
        assertThat(e.attempts()).as("attempts the gateway counted of " + what).isEqualTo(tries);
        List<JsonNode> logged = new ArrayList<>();
        Answer log = merchantGet("/merchant-api/v1/payments/" + t.id + "/webhooks");
        assertThat(log.status()).as("the webhook log of " + t + ": " + log.body()).isEqualTo(200);
        log.json().get("result").forEach(a -> {
          if (a.get("webhookId").asText().equals(e.id())) {
            logged.add(a);
          }
        });
        List<String> statuses = new ArrayList<>(java.util.Collections.nCopies(tries - 1, "PENDING"));
        statuses.add(0, "FAILED");
        assertThat(logged.stream().map(a -> a.get("status").asText()).toList())
            .as("the delivery log of " + what + ", newest first").isEqualTo(statuses);
        assertThat(logged.stream().map(a -> a.get("statusCode").asInt() / 100).toList())
            .as("answers logged of " + what).doesNotContain(2);
        refusedForGood.remove(e.id());
        resent.put(e.id(), new Resent(t, e.state(), 0, true));
        resend(t);
        note("webhook " + e.id() + " failed and resent of " + t);
      }
      if (!all || refusedForGood.isEmpty() || System.nanoTime() > end) {
        break;
      }
      Thread.sleep(200);
    }
    if (all) {
      assertThat(eventRecords(Set.copyOf(refusedForGood)).values()).as("webhook events refused every time that "
          + "the gateway has not given up on after " + RETRY_SCHEDULE).isEmpty();
    }
  }

  // ---- settling -----------------------------------------------------------------------------

  /** Waits, boundedly, until no payout the model expects to end is still on its way. */
  private void settle() throws InterruptedException {
    long end = System.nanoTime() + SETTLE.toNanos();
    List<String> waiting;
    int rounds = 0;
    do {
      waiting = rows().values().stream().filter(r -> tracked.containsKey(r.id())
          && !tracked.get(r.id()).ends.contains(r.state())).map(r -> r.id() + " " + r.state()).toList();
      if (waiting.isEmpty()) {
        break;
      }
      if (++rounds % 5 == 1) {
        unansweredDepositsOverdue();
      }
      Thread.sleep(100);
    } while (System.nanoTime() < end);
    assertThat(waiting).as("payments not where the model expects them after " + SETTLE.toSeconds() + " s")
        .isEmpty();
  }

  // ---- the invariants -----------------------------------------------------------------------

  /**
   * Each shop's balances, as its ledger, the gateway API and the merchant API show them, are what
   * the model's payments add up to once settled; mid-run, the APIs show what the ledger says (read
   * twice around them, so that a payout the worker finishes meanwhile cannot make them differ).
   */
  private void balancesFollowTheLedger(String when) {
    for (Shop shop : shops) {
      for (String currency : CURRENCIES) {
        BigDecimal[] before = gw.ledgerSum(shop.id(), currency);
        BigDecimal[] table = balanceRows(shop, currency);
        Map<String, BigDecimal> api = apiBalances(shop, currency);
        BigDecimal withdrawable = withdrawable(shop, currency);
        Map<String, BigDecimal> merchant = merchantBalances(shop, currency);
        BigDecimal merchantWithdrawable = merchantWithdrawable(shop, currency);
        BigDecimal[] after = gw.ledgerSum(shop.id(), currency);
        if (before[0].compareTo(after[0]) != 0 || before[1].compareTo(after[1]) != 0) {
          continue; // the worker moved it in between: compared next time
        }
        String what = shop.name() + " " + currency + " " + when;
        if (shop == shops.get(CHECKING_CONVERTING_SHOP) && currency.equals("USD")) {
          // what its withdrawals are checked against: in USD when created, converted when routed
          assertThat(before[0]).as("available ledger of " + what + ", a shop checking what it pays out")
              .isGreaterThanOrEqualTo(BigDecimal.ZERO);
        }
        assertThat(table[0]).as("balance rows (available) of " + what).isEqualByComparingTo(before[0]);
        assertThat(table[1]).as("balance rows (reserved) of " + what).isEqualByComparingTo(before[1]);
        assertThat(api.getOrDefault("AVAILABLE", BigDecimal.ZERO)).as("AVAILABLE balance of " + what)
            .isEqualByComparingTo(before[0]);
        assertThat(api.getOrDefault("WITHDRAWAL", BigDecimal.ZERO)).as("WITHDRAWAL balance of " + what)
            .isEqualByComparingTo(before[1]);
        assertThat(withdrawable).as("available-withdrawal balance of " + what)
            .isEqualByComparingTo(before[0].max(BigDecimal.ZERO));
        assertThat(merchant.getOrDefault("AVAILABLE", BigDecimal.ZERO))
            .as("AVAILABLE balance in the merchant API of " + what).isEqualByComparingTo(before[0]);
        assertThat(merchant.getOrDefault("WITHDRAWAL", BigDecimal.ZERO))
            .as("WITHDRAWAL balance in the merchant API of " + what).isEqualByComparingTo(before[1]);
        assertThat(merchantWithdrawable).as("available-withdrawal balance in the merchant API of " + what)
            .isEqualByComparingTo(before[0].max(BigDecimal.ZERO));
        if (when.equals("once settled")) {
          BigDecimal[] model = modelBalance(shop, currency);
          assertThat(before[0]).as("available ledger of " + what + " against the model").isEqualByComparingTo(model[0]);
          assertThat(before[1]).as("reserved ledger of " + what + " against the model").isEqualByComparingTo(model[1]);
        }
      }
    }
  }

  private BigDecimal[] modelBalance(Shop shop, String currency) {
    BigDecimal available = BigDecimal.ZERO;
    BigDecimal reserved = BigDecimal.ZERO;
    for (Tracked t : tracked.values()) {
      if (t.shop != shop || !t.currency.equals(currency)) {
        continue;
      }
      String end = t.ends.iterator().next();
      if (t.type == PaymentType.DEPOSIT) {
        available = end.equals("COMPLETED") ? available.add(t.amount) : available;
      } else if (end.equals("COMPLETED")) {
        available = available.subtract(t.amount);
      } else if (end.equals("PENDING") || end.equals("AWAITING_APPROVAL")) {
        available = available.subtract(t.amount);
        reserved = reserved.add(t.amount);
      }
    }
    return new BigDecimal[] {available, reserved};
  }

  private static BigDecimal[] balanceRows(Shop shop, String currency) {
    return gw.database.jdbi().withHandle(h -> h.createQuery("""
            SELECT coalesce(sum(available), 0) a, coalesce(sum(reserved), 0) r FROM balances
             WHERE shop_id = :s AND currency = :c""")
        .bind("s", shop.id().value()).bind("c", currency)
        .map((rs, ctx) -> new BigDecimal[] {rs.getBigDecimal("a"), rs.getBigDecimal("r")}).one());
  }

  /** The id each balance account was first seen with: an account's id never changes. */
  static final Map<String, Long> accountIds = new ConcurrentHashMap<>();

  private static Map<String, BigDecimal> apiBalances(Shop shop, String currency) {
    Map<String, BigDecimal> found = new HashMap<>();
    for (JsonNode b : ok(get("/api/v1/balances", shop.key()), "balances")) {
      String account = shop.name() + " " + b.get("currency").asText() + " " + b.get("accountType").asText();
      Long first = accountIds.putIfAbsent(account, b.get("id").asLong());
      assertThat(b.get("id").asLong()).as("id of the balance " + account).isEqualTo(first == null
          ? b.get("id").asLong() : first);
      if (b.get("currency").asText().equals(currency)) {
        BigDecimal earlier = found.put(b.get("accountType").asText(), b.get("amount").decimalValue());
        assertThat(earlier).as("one " + b.get("accountType").asText() + " balance per currency").isNull();
      }
    }
    return found;
  }

  /**
   * A shop's balances in a currency as the merchant API lists them for all the merchant's shops,
   * told apart by the names they are given, with the account ids the gateway API shows.
   */
  private static Map<String, BigDecimal> merchantBalances(Shop shop, String currency) {
    Map<String, BigDecimal> found = new HashMap<>();
    Map<String, String> names = Map.of(shop.fullName() + " available " + currency, "AVAILABLE",
        shop.fullName() + " held for pending withdrawals and refunds " + currency, "WITHDRAWAL");
    Answer a = merchantGet("/merchant-api/v1/balances");
    for (JsonNode b : ok(a, "merchant balances")) {
      String type = names.get(b.get("name").asText());
      if (type == null) {
        continue;
      }
      assertThat(b.get("accountType").asText()).as("type of the balance " + b).isEqualTo(type);
      assertThat(b.get("currency").asText()).as("currency of the balance " + b).isEqualTo(currency);
      String account = shop.name() + " " + currency + " " + type;
      Long first = accountIds.putIfAbsent(account, b.get("id").asLong());
      assertThat(b.get("id").asLong()).as("id in the merchant API of the balance " + account)
          .isEqualTo(first == null ? b.get("id").asLong() : first);
      BigDecimal earlier = found.put(type, b.get("amount").decimalValue());
      assertThat(earlier).as("one " + type + " balance of " + shop.name() + " in " + currency).isNull();
    }
    return found;
  }

  private static BigDecimal merchantWithdrawable(Shop shop, String currency) {
    BigDecimal found = null;
    for (JsonNode b : ok(merchantGet("/merchant-api/v1/available-withdrawal-balances"),
        "merchant withdrawal balances")) {
      assertThat(b.get("amount").decimalValue().signum()).as("an available-withdrawal balance " + b).isPositive();
      if (b.get("shopId").asLong() == shop.id().value() && b.get("currency").asText().equals(currency)) {
        assertThat(found).as("one available-withdrawal balance of " + shop.name() + " in " + currency).isNull();
        assertThat(b.get("shopName").asText()).as("shop name of " + b).isEqualTo(shop.fullName());
        found = b.get("amount").decimalValue();
      }
    }
    return found == null ? BigDecimal.ZERO : found;
  }

  private static BigDecimal withdrawable(Shop shop, String currency) {
    BigDecimal found = BigDecimal.ZERO;
    for (JsonNode b : ok(get("/api/v1/available-withdrawal-balances", shop.key()), "withdrawal balances")) {
      assertThat(b.get("amount").decimalValue().signum()).as("an available-withdrawal balance " + b).isPositive();
      if (b.get("currency").asText().equals(currency)) {
        found = b.get("amount").decimalValue();
      }
    }
    return found;
  }

  /** Every payment the shops hold is one the model made, in a state and of an amount the model allows. */
  private void everyPaymentEndsAsModelled() {
    Map<String, Row> rows = rows();
    assertThat(rows.keySet()).as("payments of the run's shops that no answer announced as new")
        .isSubsetOf(tracked.keySet());
    assertThat(tracked.keySet()).as("payments announced that the database lacks").isSubsetOf(rows.keySet());
    for (Tracked t : tracked.values()) {
      Row row = rows.get(t.id);
      JsonNode api = ok(get("/api/v1/payments/" + t.id, t.shop.key()), "payment");
      assertThat(api.get("state").asText()).as("state of " + t).isIn(t.ends).isEqualTo(row.state());
      assertThat(row.amount()).as("amount of " + t).isEqualByComparingTo(t.amount);
      assertThat(api.get("amount").decimalValue()).as("amount of " + t).isEqualByComparingTo(t.amount);
      assertThat(row.currency()).isEqualTo(t.currency);
      if (t.asked != null) {
        assertThat(api.get("customerAmount").decimalValue()).as("asked amount of " + t).isEqualByComparingTo(t.asked);
        assertThat(api.get("customerCurrency").asText()).isEqualTo(t.askedCurrency);
      }
      assertThat(row.type()).isEqualTo(t.type.name());
      if (t.shop == shops.get(REGULAR_SHOPS) && row.state().equals("CANCELLED")) {
        assertThat(api.get("errorCode").asText()).as("error of " + t).isEqualTo("1.04");
      }
      if (BLACKLISTED.equals(t.card)) {
        assertThat(api.get("errorCode").asText()).as("error of " + t + ", paid out to a blacklisted card")
            .isEqualTo("6.01");
      }
    }
  }

  record Row(String id, long shop, String type, String state, BigDecimal amount, String currency, String parent,
      BigDecimal refunded) {}

  private Map<String, Row> rows() {
    List<Long> ids = shops.stream().map(s -> s.id().value()).toList();
    Map<String, Row> rows = new LinkedHashMap<>();
    gw.database.jdbi().useHandle(h -> h.createQuery("""
            SELECT id, shop_id, payment_type, state, amount, currency, parent_payment_id, refunded_amount
              FROM payments WHERE shop_id = ANY(:shops)""")
        .bind("shops", ids.toArray(new Long[0]))
        .map((rs, ctx) -> new Row(rs.getString("id"), rs.getLong("shop_id"), rs.getString("payment_type"),
            rs.getString("state"), rs.getBigDecimal("amount"), rs.getString("currency"),
            rs.getString("parent_payment_id"), rs.getBigDecimal("refunded_amount")))
        .forEach(r -> rows.put(r.id(), r)));
    return rows;
  }

  record Entry(String payment, String currency, BigDecimal available, BigDecimal reserved) {}

  /**
   * A completed deposit is credited once, and nothing else of a deposit moves money; a
   * withdrawal or refund holds its amount once, and then is paid out or released once; a
   * converted withdrawal holds what it was asked for until it is routed, then gives that back
   * and holds, and pays out, its converted amount; one that held nothing until routed moves no
   * money before, and none at all when it is declined there.
   */
  private void everyLedgerEntryIsItsPaymentsOwn() {
    Map<String, List<Entry>> entries = new HashMap<>();
    List<Long> ids = shops.stream().map(s -> s.id().value()).toList();
    gw.database.jdbi().useHandle(h -> h.createQuery("""
            SELECT payment_id, currency, available, reserved FROM ledger_entries
             WHERE shop_id = ANY(:shops) ORDER BY id""")
        .bind("shops", ids.toArray(new Long[0]))
        .map((rs, ctx) -> new Entry(rs.getString("payment_id"), rs.getString("currency"), rs.getBigDecimal("available"),
            rs.getBigDecimal("reserved")))
        .forEach(e -> entries.computeIfAbsent(e.payment(), p -> new ArrayList<>()).add(e)));
    assertThat(entries.keySet()).as("ledger entries of payments the run did not make").isSubsetOf(tracked.keySet());
    for (Tracked t : tracked.values()) {
      List<Entry> own = entries.getOrDefault(t.id, List.of());
      String end = t.ends.iterator().next();
      BigDecimal a = t.amount;
      List<BigDecimal[]> expected = new ArrayList<>();
      List<String> currencies = new ArrayList<>();
      if (t.type == PaymentType.DEPOSIT) {
        if (end.equals("COMPLETED")) {
          expected.add(new BigDecimal[] {a, BigDecimal.ZERO});
        }
      } else if (!t.heldOnceRouted || t.asked != null) {
        if (t.type == PaymentType.WITHDRAWAL && t.asked != null && !t.heldOnceRouted) {
          expected.add(new BigDecimal[] {t.asked.negate(), t.asked});
          expected.add(new BigDecimal[] {t.asked, t.asked.negate()});
          currencies.add(t.askedCurrency);
          currencies.add(t.askedCurrency);
        }
        if (t.passed != null) {
          // held where it was declined, then given back there as it moved on
          expected.add(new BigDecimal[] {t.passed.negate(), t.passed});
          expected.add(new BigDecimal[] {t.passed, t.passed.negate()});
          currencies.add(t.passedCurrency);
          currencies.add(t.passedCurrency);
        }
        expected.add(new BigDecimal[] {a.negate(), a});
        if (end.equals("COMPLETED")) {
          expected.add(new BigDecimal[] {BigDecimal.ZERO, a.negate()});
        } else if (end.equals("DECLINED") || end.equals("CANCELLED")) {
          expected.add(new BigDecimal[] {a, a.negate()});
        }
      }
      assertThat(own).as("ledger entries of " + t).hasSize(expected.size());
      for (int i = 0; i < own.size(); i++) {
        Entry e = own.get(i);
        assertThat(e.currency()).as("currency of entry " + i + " of " + t)
            .isEqualTo(i < currencies.size() ? currencies.get(i) : t.currency);
        assertThat(e.available()).as("entry " + i + " of " + t).isEqualByComparingTo(expected.get(i)[0]);
        assertThat(e.reserved()).as("entry " + i + " of " + t).isEqualByComparingTo(expected.get(i)[1]);
      }
    }
  }

  /**
   * The payouts of {@link #screenedAndCascadedPayouts} took the paths they are there for, as the
   * gateway recorded them: withdrawals declined by the anti-fraud screen, with a 6.xx code, before
   * any routing; withdrawals given back where a terminal that converted them declined them, in a
   * currency they were neither asked nor paid in; withdrawals held twice in the currency they are
   * paid in, for different sums, having moved on at a moved rate. Their ledger entries are held to
   * the model by {@link #everyLedgerEntryIsItsPaymentsOwn}.
   */
  private void screenedAndCascadedPayoutsRan() {
    Long[] ids = shops.stream().map(s -> s.id().value()).toArray(Long[]::new);
    long screened = count("""
        SELECT count(DISTINCT p.id) FROM payments p JOIN payment_operations o ON o.payment_id = p.id
         WHERE p.shop_id = ANY(:shops) AND p.payment_type = 'WITHDRAWAL' AND o.operation = 'DETECT_FRAUD'
           AND o.payment_state = 'DECLINED' AND o.error_code LIKE '6.%'
        """, ids);
    long cascadedOut = count("""
        SELECT count(DISTINCT p.id) FROM payments p JOIN ledger_entries e ON e.payment_id = p.id
         WHERE p.shop_id = ANY(:shops) AND p.payment_type = 'WITHDRAWAL' AND e.reserved < 0
           AND e.currency <> p.currency AND e.currency <> p.customer_currency
        """, ids);
    long cascadedAtAMovedRate = count("""
        SELECT count(*) FROM (SELECT p.id FROM payments p JOIN ledger_entries e ON e.payment_id = p.id
         WHERE p.shop_id = ANY(:shops) AND p.payment_type = 'WITHDRAWAL' AND e.reserved > 0
           AND e.currency = p.currency
         GROUP BY p.id HAVING count(DISTINCT e.reserved) > 1) moved
        """, ids);
    System.out.println("MoneyInvariantsTest payouts: " + screened + " declined by the screen, " + cascadedOut
        + " cascaded out of a converting terminal, " + cascadedAtAMovedRate + " cascaded at a moved rate");
    assertThat(screened).as("withdrawals declined by the anti-fraud screen before routing").isPositive();
    assertThat(cascadedOut).as("withdrawals cascaded out of a terminal that converted them into a third currency")
        .isPositive();
    assertThat(cascadedAtAMovedRate).as("withdrawals cascaded within one currency at a moved rate").isPositive();
  }

  private static long count(String sql, Long[] shops) {
    return gw.database.jdbi().withHandle(h -> h.createQuery(sql).bind("shops", shops).mapTo(Long.class).one());
  }

  /**
   * What the acquirer did is what the gateway counted: it moved a payment's money (charged, paid
   * out, refunded) at most once, however often it was asked, after a timeout too, and whichever
   * terminal asked; a payment completed or authorized is one it moved the money of, and one
   * declined or cancelled (but for a voided pre-authorization) one it did not. One it may have
   * moved the money of but never answered stays PENDING, which the ledger holds (neither paid
   * out nor given back). A pre-authorization is captured at the acquirer, once, for what the
   * gateway says, exactly when the gateway completed it, and voided there exactly when the
   * gateway cancelled it once authorized; never both. Called when no capture or void waits for
   * its terminal: one that does may have been made there while the gateway still says AUTHORIZED.
   */
  private void everyAcquirerDecisionIsCountedOnce() {
    Map<String, Row> rows = rows();
    assertThat(acquirer.asked()).as("payments the acquirer was asked about that the run did not make")
        .isSubsetOf(tracked.keySet());
    for (Tracked t : tracked.values()) {
      Row row = rows.get(t.id);
      String state = row.state();
      List<String> moved = acquirer.moved(t.id);
      List<String> captured = moved.stream().filter(m -> m.startsWith("capture ")).toList();
      List<String> charged = moved.stream().filter(m -> !m.startsWith("capture ")).toList();
      String voided = acquirer.voided(t.id);
      String what = t + ", " + state + ", whose money the acquirer moved in " + moved
          + (voided == null ? "" : ", voided");
      assertThat(charged).as("money moved more than once of " + what).hasSizeLessThanOrEqualTo(1);
      if (t.type == PaymentType.DEPOSIT && t.card == null) {
        continue; // a bank transfer: the sandbox bank's, not the acquirer's
      }
      if (state.equals("COMPLETED") || state.equals("AUTHORIZED")) {
        assertThat(charged).as(state + " with no money moved by the acquirer: " + what).hasSize(1);
      } else if (state.equals("DECLINED") || (state.equals("CANCELLED") && !t.preAuth)) {
        assertThat(charged).as(state + " with its money moved by the acquirer: " + what).isEmpty();
      }
      if (!t.preAuth) {
        assertThat(captured).as("captured at the acquirer, not a pre-authorization: " + what).isEmpty();
        assertThat(voided).as("voided at the acquirer, not a pre-authorization: " + what).isNull();
        continue;
      }
      assertThat(captured.isEmpty() || voided == null).as("captured and voided at the acquirer: " + what).isTrue();
      if (state.equals("COMPLETED")) {
        assertThat(captured).as("COMPLETED, not captured at the acquirer: " + what).hasSize(1);
        // "capture <payment> <amount> <currency>", as the acquirer was asked it
        String[] step = captured.get(0).split(" ");
        assertThat(new BigDecimal(step[2])).as("captured at the acquirer of " + what)
            .isEqualByComparingTo(row.amount());
        assertThat(step[3]).as("currency captured at the acquirer of " + what).isEqualTo(row.currency());
      } else {
        assertThat(captured).as(state + ", captured at the acquirer: " + what).isEmpty();
      }
      if (state.equals("CANCELLED") && !charged.isEmpty()) {
        assertThat(voided).as("CANCELLED once authorized, not voided at the acquirer: " + what).isNotNull();
      } else {
        assertThat(voided).as(state + ", voided at the acquirer: " + what).isNull();
      }
    }
  }

  /** The refunds of a deposit never add up to more than it, and its record sums the paid ones. */
  private void refundsNeverExceedTheirDeposit() {
    Map<String, Row> rows = rows();
    for (Row deposit : rows.values()) {
      if (!deposit.type().equals("DEPOSIT")) {
        continue;
      }
      BigDecimal held = BigDecimal.ZERO;
      BigDecimal paid = BigDecimal.ZERO;
      boolean any = false;
      for (Row r : rows.values()) {
        if (deposit.id().equals(r.parent())) {
          assertThat(deposit.state()).as("a refunded deposit").isEqualTo("COMPLETED");
          if (!r.state().equals("DECLINED") && !r.state().equals("CANCELLED")) {
            held = held.add(r.amount());
          }
          if (r.state().equals("COMPLETED")) {
            paid = paid.add(r.amount());
            any = true;
          }
        }
      }
      assertThat(held).as("refunds of " + tracked.get(deposit.id())).isLessThanOrEqualTo(deposit.amount());
      if (any) {
        assertThat(deposit.refunded()).as("refundedAmount of " + tracked.get(deposit.id())).isEqualByComparingTo(paid);
      } else {
        assertThat(deposit.refunded()).as("refundedAmount of " + tracked.get(deposit.id())).isNull();
      }
    }
  }

  /** A shop checking its balance never holds or pays out in withdrawals more than its deposits brought. */
  private void checkedShopsNeverPayOutMoreThanTheyHold() {
    for (Shop shop : shops) {
      if (!shop.checkBalance()) {
        continue;
      }
      for (String currency : CURRENCIES) {
        BigDecimal in = BigDecimal.ZERO;
        BigDecimal out = BigDecimal.ZERO;
        for (Tracked t : tracked.values()) {
          if (t.shop != shop || !t.currency.equals(currency)) {
            continue;
          }
          String end = t.ends.iterator().next();
          if (t.type == PaymentType.DEPOSIT && end.equals("COMPLETED")) {
            in = in.add(t.amount);
          } else if (t.type == PaymentType.WITHDRAWAL && !end.equals("DECLINED") && !end.equals("CANCELLED")) {
            out = out.add(t.amount);
          }
        }
        assertThat(out).as("withdrawals of " + shop.name() + " in " + currency).isLessThanOrEqualTo(in);
      }
    }
  }

  record Step(String payment, String operation, String state) {}

  /**
   * CONTRACT section 3, written out apart from the domain's table: the states a payment of a
   * type may move to from each state, by any step.
   */
  static final Map<String, Set<String>> CONTRACT = Map.of(
      "DEPOSIT CHECKOUT", Set.of("CHECKOUT", "PENDING", "AUTHORIZED", "COMPLETED", "DECLINED", "CANCELLED"),
      "DEPOSIT PENDING", Set.of("PENDING", "AUTHORIZED", "COMPLETED", "DECLINED", "CANCELLED"),
      "DEPOSIT AUTHORIZED", Set.of("COMPLETED", "CANCELLED"),
      "WITHDRAWAL AWAITING_APPROVAL", Set.of("PENDING", "CANCELLED"),
      "WITHDRAWAL PENDING", Set.of("PENDING", "COMPLETED", "DECLINED"),
      "REFUND PENDING", Set.of("COMPLETED", "DECLINED"));

  /**
   * Each payment's operations, oldest first, are a walk through the contract's state table:
   * created in a state its type may start in, every step one the table allows from the state
   * before it, nothing after a final state, and the payment's state the last step's.
   */
  private void everyStepIsOneTheContractAllows() {
    Map<String, Row> rows = rows();
    Map<String, List<Step>> steps = operations();
    for (Tracked t : tracked.values()) {
      List<Step> own = steps.getOrDefault(t.id, List.of());
      assertThat(own).as("operations of " + t).isNotEmpty();
      assertThat(own.get(0).operation()).as("first operation of " + t).isEqualTo("CREATE_PAYMENT");
      PaymentState state = PaymentState.valueOf(own.get(0).state());
      assertThat(PaymentTransitions.initialStates(t.type)).as("initial state of " + t).contains(state);
      for (Step s : own.subList(1, own.size())) {
        assertThat(state.isFinal()).as(s.operation() + " of " + t + " after it was " + state).isFalse();
        OperationType op = OperationType.valueOf(s.operation());
        PaymentState to = PaymentState.valueOf(s.state());
        assertThat(PaymentTransitions.targets(t.type, state, op)).as(op + " of " + t + " from " + state)
            .contains(to);
        if (to == PaymentState.AUTHORIZED) {
          assertThat(t.preAuth).as("only a pre-authorization is authorized: " + t).isTrue();
        }
        assertThat(CONTRACT.getOrDefault(t.type + " " + state, Set.of())).as(op + " of " + t + " from " + state
            + ", by the contract's own words").contains(to.name());
        if (state == PaymentState.AUTHORIZED || state == PaymentState.AWAITING_APPROVAL) {
          assertThat(op).as("what moves " + t + " out of " + state).isIn(OperationType.CAPTURE, OperationType.VOID,
              OperationType.APPROVE, OperationType.REJECT);
        }
        state = to;
      }
      assertThat(rows.get(t.id).state()).as("state of " + t + " against its last operation").isEqualTo(state.name());
    }
  }

  private Map<String, List<Step>> operations() {
    List<Long> ids = shops.stream().map(s -> s.id().value()).toList();
    Map<String, List<Step>> steps = new HashMap<>();
    gw.database.jdbi().useHandle(h -> h.createQuery("""
            SELECT payment_id, operation, payment_state FROM payment_operations
             WHERE shop_id = ANY(:shops) ORDER BY id""")
        .bind("shops", ids.toArray(new Long[0]))
        .map((rs, ctx) -> new Step(rs.getString("payment_id"), rs.getString("operation"),
            rs.getString("payment_state")))
        .forEach(s -> steps.computeIfAbsent(s.payment(), p -> new ArrayList<>()).add(s)));
    return steps;
  }

  record Event(String id, String payment, String state, String status) {}

  /**
   * Exactly one webhook event per announced state a payment entered (COMPLETED, DECLINED,
   * CANCELLED, AUTHORIZED), in order, each taken (answered 2xx) by the shop's receiver however
   * often it refused it first, and recorded delivered by the gateway; each one resent taken once
   * more, as the payment's latest state. Every webhook that arrived is of a payment the model
   * knows, one of its events, signed with its shop's signing key.
   */
  private void everyAnnouncedStateHasOneWebhookDeliveredInOrder() throws InterruptedException {
    List<Long> ids = shops.stream().map(s -> s.id().value()).toList();
    Map<String, List<Event>> events = new HashMap<>();
    Map<String, Event> byId = new HashMap<>();
    gw.database.jdbi().useHandle(h -> h.createQuery("""
            SELECT CAST(id AS text) id, payment_id, payment_state, status FROM webhook_events
             WHERE shop_id = ANY(:shops) ORDER BY seq""")
        .bind("shops", ids.toArray(new Long[0]))
        .map((rs, ctx) -> new Event(rs.getString("id"), rs.getString("payment_id"), rs.getString("payment_state"),
            rs.getString("status")))
        .forEach(e -> {
          events.computeIfAbsent(e.payment(), p -> new ArrayList<>()).add(e);
          byId.put(e.id(), e);
        }));
    assertThat(events.keySet()).as("events of payments the run did not make").isSubsetOf(tracked.keySet());
    Map<String, List<Step>> steps = operations();
    for (Tracked t : tracked.values()) {
      List<String> states = events.getOrDefault(t.id, List.of()).stream().map(Event::state).toList();
      assertThat(states).as("webhook events of " + t).isEqualTo(t.announced);
      List<String> entered = new ArrayList<>();
      String before = null;
      for (Step s : steps.get(t.id)) {
        if (!s.state().equals(before) && PaymentState.valueOf(s.state()).notifiesMerchant()) {
          entered.add(s.state());
        }
        before = s.state();
      }
      assertThat(states).as("webhook events of " + t + " against the states it entered").isEqualTo(entered);
    }
    boolean delivered = WebhookReceiver.await(() -> notTaken(byId.keySet()).isEmpty(), Duration.ofSeconds(30));
    assertThat(delivered).as("events not taken by the receiver (answered 2xx), or resent and not taken again:\n  "
        + String.join("\n  ", notTaken(byId.keySet()).stream().limit(5).map(e -> described(byId.get(e))).toList()))
        .isTrue();
    // the gateway records an attempt once the receiver's answer is back, a moment after it was taken
    List<Event> unsettled;
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    do {
      unsettled = gw.database.jdbi().withHandle(h -> h.createQuery("""
              SELECT CAST(id AS text) id, payment_id, payment_state, status FROM webhook_events
               WHERE shop_id = ANY(:shops) AND status <> 'DELIVERED'""")
          .bind("shops", ids.toArray(new Long[0]))
          .map((rs, ctx) -> new Event(rs.getString("id"), rs.getString("payment_id"),
              rs.getString("payment_state"), rs.getString("status")))
          .list());
      if (unsettled.isEmpty()) {
        break;
      }
      Thread.sleep(100);
    } while (System.nanoTime() < end);
    assertThat(unsettled).as("webhook events taken by the receiver that the gateway has not recorded delivered")
        .isEmpty();

    Map<String, List<String>> takenStates = new HashMap<>();
    Map<String, Taken> lastTaken = new HashMap<>();
    for (Taken d : taken()) {
      Tracked t = tracked.get(d.payment());
      assertThat(t).as("a webhook of a payment the model does not know: " + d.received().bodyText()).isNotNull();
      String what = "webhook " + d.event() + " of " + t;
      assertThat(d.received().path()).as("where the " + what + " went").endsWith(t.shop.name().replace(' ', '-'));
      Event e = byId.get(d.event());
      assertThat(e).as(what + ", which the gateway has no event of").isNotNull();
      assertThat(e.payment()).as("the payment of " + what).isEqualTo(t.id);
      assertThat(d.state()).as("the state sent in " + what).isEqualTo(e.state());
      assertThat(d.received().header("Signature")).as("Signature of " + what)
          .isEqualTo(signature(t.shop, d.received()));
      assertThat(d.received().header("Webhook-Signature")).as("Webhook-Signature of " + what)
          .isEqualTo(standardSignature(t.shop, d.received()));
      if (d.accepted()) {
        takenStates.computeIfAbsent(t.id, p -> new ArrayList<>()).add(d.state());
        lastTaken.put(d.event(), d);
      }
    }
    for (Tracked t : tracked.values()) {
      // a retry repeats the state it retries, a resend the last: one run of each, in the order entered
      List<String> inOrder = new ArrayList<>();
      for (String state : takenStates.getOrDefault(t.id, List.of())) {
        if (inOrder.isEmpty() || !inOrder.get(inOrder.size() - 1).equals(state)) {
          inOrder.add(state);
        }
      }
      assertThat(inOrder).as("states of the webhooks of " + t + " the receiver took, in order").isEqualTo(t.announced);
    }
    for (Map.Entry<String, Resent> r : resent.entrySet()) {
      Tracked t = r.getValue().payment();
      assertThat(t.announced).as("states announced of " + t + ", whose webhook " + r.getKey() + " was resent in "
          + r.getValue().state()).last().isEqualTo(r.getValue().state());
      assertThat(lastTaken.get(r.getKey()).state()).as("state of the resent webhook " + r.getKey() + " of " + t)
          .isEqualTo(r.getValue().state());
    }
  }

  private String described(Event e) {
    Resent again = resent.get(e.id());
    return e.id() + " in " + e.state() + " of " + tracked.get(e.payment()) + ", " + e.status() + " after "
        + attempts.get(e.id()) + " attempts"
        + (again == null ? "" : ", resent after it was taken " + again.takenBefore() + " times");
  }

  /** Events of {@code all} the receiver has not taken, and resent ones it has not taken again. */
  private List<String> notTaken(Set<String> all) {
    Map<String, Long> accepted = new HashMap<>();
    for (WebhookReceiver.Received r : hooks.received()) {
      if (r.status() / 100 == 2) {
        accepted.merge(r.header("Webhook-Id"), 1L, Long::sum);
      }
    }
    List<String> missing = new ArrayList<>();
    for (String e : all) {
      Resent again = resent.get(e);
      if (accepted.getOrDefault(e, 0L) <= (again == null ? 0 : again.takenBefore())) {
        missing.add(e);
      }
    }
    return missing;
  }

  private static String signature(Shop shop, WebhookReceiver.Received r) {
    try {
      return WebhookDeliveryTest.hmacHex(shop.signingKey(), r.body());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String standardSignature(Shop shop, WebhookReceiver.Received r) {
    try {
      return WebhookDeliveryTest.standardSignature(shop.signingKey(), r.header("Webhook-Id"),
          r.header("Webhook-Timestamp"), r.body());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  /** Each Idempotency-Key the run used names the one payment its answers named. */
  private void everyIdempotencyKeyNamesOnePayment() {
    for (Map.Entry<String, String> e : idempotencyKeys.entrySet()) {
      String[] shopAndKey = e.getKey().split("/", 2);
      List<String> named = gw.database.jdbi().withHandle(h -> h.createQuery(
              "SELECT payment_id FROM idempotency_keys WHERE shop_id = :s AND idempotency_key = :k")
          .bind("s", Long.parseLong(shopAndKey[0])).bind("k", shopAndKey[1]).mapTo(String.class).list());
      assertThat(named).as("idempotency key " + shopAndKey[1]).containsExactly(e.getValue());
    }
  }
}
