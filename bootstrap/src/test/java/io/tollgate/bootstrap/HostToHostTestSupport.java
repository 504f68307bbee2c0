package io.tollgate.bootstrap;

final class HostToHostTestSupport {
  private HostToHostTestSupport() {}

  static String depositWithCard(TestGateway gw, String number, String amount, boolean preAuth) {
    TestGateway.Answer a = gw.post("/api/v1/payments", """
        {"paymentType":"DEPOSIT","amount":%s,"currency":"EUR","preAuth":%s,
         "card":{"cardNumber":"%s","cardholderName":"ANN LEE","cardSecurityCode":"123","expiryMonth":"12","expiryYear":"2045"}}
        """.formatted(amount, preAuth, number));
    if (a.status() != 200) {
      throw new AssertionError(a.toString());
    }
    return a.json().at("/result/id").asText();
  }
}
