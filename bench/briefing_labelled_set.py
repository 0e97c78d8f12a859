# ruff: noqa: E501  (the snippets are data: one briefing sentence per line)
"""The labelled briefings the briefing audits are measured on (issue 33): write the fixture.

Every snippet below was written by hand for this set, to sit just outside any rule list the
audits had: ten kinds of assumption (currency, phone, date, unit, holiday, identifier or
address, customary practice / sport / idiom, profession jargon or billing code, regulation,
tax; and, added later, addresses in one country's format), each with briefings that assume it (label `assumption`) and hard negatives that
explain the same thing (label `explained`: a code stated, a conversion given, a term defined
by apposition, parentheses, "means", "is defined as", a requirement stated in plain words),
plus neutral briefings. A seeded choice of lead and closing sentences wraps each snippet.
Snippets alternate between the `dev` split (thresholds are chosen on it) and `test` (the
numbers docs/detectors.md reports).

    .venv/bin/python bench/briefing_labelled_set.py   # writes tests/fixtures/briefing_labelled_set.json
"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUTPUT = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "briefing_labelled_set.json"
SEED = 33

LEADS = (
    "Build a small service for a client.",
    "Write a command-line tool.",
    "Implement the function described below.",
    "Extend the existing module.",
    "Create a REST endpoint.",
    "Write a batch job that runs nightly.",
    "Implement a library function with unit tests.",
    "Add a feature to the scheduling app.",
)
CLOSINGS = (
    "Return the result as JSON.",
    "Invalid input must raise a clear error.",
    "Write tests for the edge cases.",
    "Keep the code in one module.",
    "Log every rejected record.",
    "The function must be deterministic.",
    "",
)

# kind -> (assumption snippets, explained snippets)
SNIPPETS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "currency": (
        (
            "Orders above $50 ship free; smaller orders pay a $4.99 delivery charge.",
            "Refunds are capped at £40 per customer per month.",
            "Each sticker costs ¥500 and a pack of ten costs ¥4,500.",
            "Apply a surcharge of R$ 12,50 to card payments.",
            "Tickets cost 120 kr for adults and 60 kr for children.",
            "A consultation is billed at ₹1,200 and a follow-up at ₹600.",
            "Reject any donation smaller than 5 zł.",
            "Members get 10% off orders over 30 $.",
            "The wallet holds at most A$2,000 at any time.",
            "Parking costs 2,50 € per hour, capped at 15 € per day.",
            "Add a ₩3,000 packaging fee to each box.",
            "Show prices like ₦2,500 with a thousands separator.",
        ),
        (
            "Orders above 50.00 USD ship free; smaller orders pay 4.99 USD for delivery.",
            "All amounts are in Canadian dollars (CAD): refunds are capped at $40.",
            "Each sticker costs 500 JPY and a pack of ten costs 4,500 JPY.",
            "Apply a surcharge of 12.50 BRL to card payments.",
            "Tickets cost 120 SEK for adults and 60 SEK for children.",
            "A consultation is billed at 1,200 INR (Indian rupees).",
            "Prices are given in euros (EUR): parking costs 2.50 EUR per hour.",
            "Amounts are integers in the smallest unit of the order's currency code.",
            "The wallet holds at most 2,000 AUD at any time.",
            "Add a packaging fee of 3,000 KRW to each box.",
            "Reject any donation smaller than 5 PLN.",
        ),
    ),
    "phone": (
        (
            "Customers can call the help desk at (555) 014-2291 on weekdays.",
            "Validate numbers like 020 7946 0958 before saving a contact.",
            "The support hotline 0412 345 678 must appear on every receipt.",
            "Text alerts go to numbers such as 06 12 34 56 78.",
            "Store the office number 030 12345678 in the settings file.",
            "Reject phone entries that do not look like 555.867.5309.",
            "Dial 0800 123 4567 to reach the night shift.",
            "The form accepts mobile numbers like 98765 43210.",
            "Show the branch number 03-1234-5678 in the footer.",
            "Emergency contacts are stored as 011 2345 6789.",
            "Each driver's phone (e.g. 0171 2345678) is shown to the dispatcher.",
        ),
        (
            "Phone numbers are in E.164 form, such as +15550142291.",
            "Validate numbers in international format (+44 20 7946 0958): a plus, the country code, then the number.",
            "Store every phone number as E.164 (+<country code><subscriber number>, at most 15 digits).",
            "The hotline is +61 412 345 678, written with its country code.",
            "Phone numbers follow E.164; reject anything else.",
            "A phone number is a plus sign followed by 8 to 15 digits.",
            "Contacts have a phone field: a string of digits with an optional leading plus.",
            "The branch number is +81 3-1234-5678 including the country code.",
            "Store the office number +49 30 12345678 with its country code.",
            "Text alerts go to numbers in E.164 format such as +33612345678.",
            "Each driver's phone is stored as entered; the dispatcher only displays it.",
        ),
    ),
    "date": (
        (
            "Invoices issued before 03/04/2025 use the old template.",
            "The campaign runs until 5/6/24 at midnight.",
            "Mark accounts inactive if the last login was before 07.08.2025.",
            "The deadline printed on the form is 12/11/2025.",
            "Bookings made on 1/2/2026 get a welcome discount.",
            "Archive everything older than 04-05-2024.",
            "Seasonal prices apply from 10/11/2025 to 11/12/2025.",
            "The migration cut-over is on 2.3.2026.",
            "Parse dates like 06/07/25 in the import file.",
            "The policy changed on 9/10/2025; older claims keep the old rules.",
            "Reports are due 08/09 every year.",
        ),
        (
            "Invoices issued before 2025-04-03 use the old template.",
            "The campaign runs until 6 May 2024 at midnight.",
            "Dates are written DD.MM.YYYY: accounts inactive since before 07.08.2025 are marked.",
            "The deadline is 11 December 2025.",
            "Dates in the import file are MM/DD/YYYY, for example 01/02/2026.",
            "Archive everything older than 2024-05-04 (ISO 8601).",
            "Seasonal prices apply from 10 November to 11 December 2025.",
            "The migration cut-over is on 2026-03-02.",
            "Parse dates in ISO 8601 format (YYYY-MM-DD).",
            "The policy changed on September 10, 2025; older claims keep the old rules.",
            "Reports are due on 8 September every year.",
        ),
    ),
    "unit": (
        (
            "Flag any parcel heavier than 50 lbs.",
            "Drivers may not cover more than 300 miles a day.",
            "Alert when the fridge rises above 41°F.",
            "The tank holds 12 gallons; warn at a quarter full.",
            "Rooms smaller than 90 square feet cannot be listed.",
            "Babies born under 5 pounds 8 ounces are marked for follow-up.",
            "Ceilings must be at least 8 ft high.",
            "Each bottle is 16 fl oz.",
            "The recipe scaler doubles 2 cups of flour and 3 tablespoons of sugar.",
            "Weigh-ins are recorded in stone.",
            "Fabric is sold by the yard, minimum half a yard.",
            "The plot covers 2 acres.",
        ),
        (
            "Flag any parcel heavier than 50 lb (1 lb = 0.4536 kg).",
            "Drivers may not cover more than 300 miles a day; 1 mile = 1.609 km.",
            "Alert when the fridge rises above 5 °C.",
            "The tank holds 45 litres; warn at a quarter full.",
            "Rooms smaller than 8 square metres cannot be listed.",
            "Weights are in grams; babies under 2500 g are marked for follow-up.",
            "Ceilings must be at least 8 ft (2.44 m) high.",
            "Each bottle is 16 fl oz, where 1 fl oz is 29.57 ml.",
            "Temperatures are in Fahrenheit: convert with C = (F - 32) * 5/9.",
            "Distances are given in kilometres.",
            "The plot covers 2 acres (one acre is 4,047 square metres).",
        ),
    ),
    "holiday": (
        (
            "No deliveries are scheduled on Thanksgiving.",
            "The shop is closed on Boxing Day.",
            "Double the staff on the days before Diwali.",
            "Payroll runs a day early when it falls on Memorial Day.",
            "Skip Golden Week when you plan the release.",
            "Send the greeting campaign on Chinese New Year.",
            "The office closes for Juneteenth.",
            "Support hours are shorter on Canada Day.",
            "Reminders are not sent on Bastille Day.",
            "Courier pickups pause for Labor Day.",
            "The sale starts on Black Friday and ends on Cyber Monday.",
            "Offer a discount during Ramadan evenings.",
        ),
        (
            "No deliveries are scheduled on Thanksgiving (the fourth Thursday of November in the US).",
            "The shop is closed on 26 December.",
            "Holidays come from a list the caller passes in; skip those dates.",
            "Payroll runs a day early when it falls on a public holiday in the given calendar.",
            "Skip the dates listed in the holidays table when you plan the release.",
            "Send the greeting campaign on the date given in the configuration.",
            "Boxing Day, which falls on 26 December, is a closing day.",
            "Memorial Day means the last Monday of May.",
            "The office closes on 19 June each year.",
            "Courier pickups pause on the first Monday of September.",
            "Closing days are the dates in the input list `closed_on`.",
        ),
    ),
    "identifier": (
        (
            "Every customer record needs a valid SSN.",
            "Reject orders whose ZIP code is not in the delivery area.",
            "Employees enter their National Insurance number at onboarding.",
            "Patients are matched on their Aadhaar number.",
            "Validate the CPF of each buyer before checkout.",
            "Suppliers are identified by their ABN.",
            "Store the BSN of every tenant.",
            "Look up the customer's SIN before opening the account.",
            "Invoices must show the seller's TFN.",
            "Addresses must include the state and postcode, e.g. NSW 2000.",
            "Validate the buyer's PESEL before shipping.",
        ),
        (
            "Every customer record needs a national identifier: a string of 9 digits.",
            "Reject orders whose postal code is not in the delivery area list.",
            "Employees enter a tax number (letters and digits, at most 12 characters) at onboarding.",
            "Patients are matched on a patient number assigned by the clinic.",
            "Validate the CPF (a Brazilian taxpayer number of 11 digits whose last two are check digits) of each buyer.",
            "Suppliers are identified by their ABN, an 11-digit Australian business number.",
            "The BSN means the 9-digit Dutch citizen number; validate it with the 11-test.",
            "Addresses are free text with a country field.",
            "Customers are looked up by their customer_id.",
            "A postal code is any string of 3 to 10 letters, digits, spaces or hyphens.",
            "Store a tenant identifier given by the landlord.",
        ),
    ),
    "custom": (
        (
            "Score the darts match by the usual rules.",
            "Compute each batter's innings total the standard way.",
            "Award the bonus to any player who scores a hat trick.",
            "Calculate the tip the customary way for restaurants.",
            "Seat the guests following standard wedding etiquette.",
            "Report golf rounds relative to par.",
            "Stop the game clock during stoppage time as a referee would.",
            "Handle a mulligan as players normally do.",
            "Split the bill Dutch style.",
            "Mark a player offside under the normal rules.",
            "Rank teams the usual way in a league table.",
        ),
        (
            "Score the darts match: each player starts at 501 and subtracts each throw; the first to reach exactly 0 wins.",
            "A batter's total is the sum of the runs they scored before they were out.",
            "Award the bonus to any player who scores a hat trick (three goals in one match).",
            "The tip is 15% of the pre-tax total, rounded up to the whole unit.",
            "Seat the guests in the order of the input list, alternating tables.",
            "A golf round is reported as strokes minus the course's par, which is given per hole.",
            "Stoppage time is defined as the minutes the referee adds at the end of each half; it is given in the input.",
            "A mulligan means the player replays the shot and the first one is not counted.",
            "Split the bill equally: each person pays the total divided by the number of people.",
            "Rank teams by points (3 for a win, 1 for a draw), then by goal difference.",
            "Sort the players by score, highest first.",
        ),
    ),
    "jargon": (
        (
            "Group the claims by CPT code and flag any with a missing modifier.",
            "Map each line item to its HCPCS code.",
            "Reject claims without a valid NPI.",
            "Start dunning for every account that is 30 days late.",
            "Handle chargebacks by reversing the settlement.",
            "Generate the amortization schedule for each loan.",
            "Compute EBITDA for each quarter.",
            "Reconcile the accruals against the ledger at month end.",
            "Process the subrogation claims first.",
            "Assign each admission its DRG.",
            "Calculate the COGS per SKU.",
            "Report the churn and the ARR for each cohort.",
        ),
        (
            "Group the claims by procedure code (a five-character string given on each claim) and flag any without a second code.",
            "Map each line item to its HCPCS code (Healthcare Common Procedure Coding System, a letter followed by four digits).",
            "Reject claims without a provider number, which is a 10-digit string.",
            "Dunning means sending escalating payment reminders: start it for every account that is 30 days late.",
            "A chargeback is a payment the card issuer reverses; reverse the settlement for each one.",
            "The amortization schedule is the table of each month's interest and principal; generate it for each loan.",
            "EBITDA is defined as earnings before interest, taxes, depreciation and amortization; compute it per quarter.",
            "Reconcile the accruals (income or costs recorded before the cash moves) against the ledger at month end.",
            "SKU, the stock-keeping unit code of a product, is the key of the inventory table.",
            "ARR (annual recurring revenue: 12 times the monthly subscription revenue) is reported per cohort.",
            "Sort the claims by amount, largest first.",
        ),
    ),
    "regulation": (
        (
            "Make the patient portal HIPAA compliant.",
            "The export must be GDPR compliant.",
            "Card payments must meet PSD2 requirements.",
            "Marketing emails must comply with CAN-SPAM.",
            "The signup page must be ADA compliant.",
            "Follow FCRA rules when showing credit results.",
            "Trade reports must satisfy MiFID II.",
            "Keep the audit trail SOX compliant.",
            "The app must follow COPPA for young users.",
            "Store the card data in a PCI-compliant way.",
            "Apply the LGPD to every Brazilian user's record.",
        ),
        (
            "HIPAA requires that patient notes are encrypted at rest and every read is logged: do both.",
            "The export must include every stored field of the user, as JSON, within one request.",
            "Card payments need two of three factors (something the user knows, has, or is) before they are accepted.",
            "Comply with CAN-SPAM: every marketing email must carry an unsubscribe link and a postal address.",
            "Every form field on the signup page needs a text label a screen reader can announce.",
            "Show a credit result only with the reason codes the input gives for it.",
            "Keep every change to the audit trail: rows are appended, never updated or deleted.",
            "Users under 13 may not create an account without a parent's email confirmation.",
            "Never store the full card number: keep only its last four digits.",
            "Delete a user's records within 30 days of their request.",
            "The GDPR (the EU General Data Protection Regulation) requires a copy of all data on request: return it as JSON.",
        ),
    ),
    "tax": (
        (
            "Add sales tax to every order.",
            "Invoices show the VAT separately.",
            "Apply GST to domestic orders only.",
            "Deduct the withholding tax from each payout.",
            "Include the state tax in the total.",
            "Charge stamp duty on each transfer.",
            "Compute the IVA for each line.",
            "Show the price with and without MwSt.",
            "Add the HST to the subtotal.",
            "Report the tax owed per quarter.",
        ),
        (
            "Add a flat 8% tax on the net amount of every order.",
            "Invoices show the VAT separately; the rate is given on each line.",
            "Apply a 10% tax to domestic orders only.",
            "Deduct 15% of each payout as withholding.",
            "Include the tax in the total: the rate is a parameter of the function.",
            "Charge a duty of 1% on each transfer.",
            "Compute the tax of each line as its amount times the line's rate.",
            "Show the price with and without tax at the 19% rate given in the config.",
            "Add 13% to the subtotal and show it as a separate line.",
            "Report the tax owed per quarter: the sum of each invoice's tax column.",
        ),
    ),
}

# Addresses in one country's format (written after the first measurement; wrapped with
# their own seeded choice so that the rows above keep their text).
ADDRESSES: tuple[tuple[str, ...], tuple[str, ...]] = (
    (
        "Ship the order to 1600 Pennsylvania Avenue NW, Washington, DC 20500 by Friday.",
        "Return labels go to 10 Downing Street, London SW1A 2AA.",
        "Validate a delivery address such as 24 Sussex Drive, Ottawa ON K1M 1M4.",
        "The warehouse is at Damrak 1, 1012 LG Amsterdam; print it on every label.",
        "Send the invoices to Friedrichstraße 43, 10117 Berlin.",
        "Reject shipping addresses that lack a postcode like EC1A 1BB.",
        "Store the customer's address, for example 2 Grand Parade, Cork T12 K8AF.",
        "Geocode addresses like 5 rue de Rivoli, 75001 Paris before routing.",
        "Deliveries within Sydney NSW 2000 are free.",
        "Our office at 350 Fifth Avenue, New York, NY 10118 handles returns.",
        "Print the sender line as Bahnhofstrasse 1, CH-8001 Zurich.",
        "Orders from Toronto ON M5V 3L9 ship the same day.",
    ),
    (
        "Ship the order to 1600 Pennsylvania Avenue NW, Washington, DC 20500 (United States) by Friday.",
        "All addresses are UK addresses: return labels go to 10 Downing Street, London SW1A 2AA.",
        "Addresses are in Canada: validate one such as 24 Sussex Drive, Ottawa ON K1M 1M4.",
        "The warehouse is at Damrak 1, 1012 LG Amsterdam, Netherlands; print it on every label.",
        "Send the invoices to Friedrichstraße 43, 10117 Berlin, Germany.",
        "Postcodes are UK postcodes such as EC1A 1BB; reject addresses without one.",
        "Addresses are free text with a country field; store them as given.",
        "Geocode addresses like 5 rue de Rivoli, 75001 Paris, France before routing.",
        "Deliveries within Sydney NSW 2000 (Australia) are free.",
        "Process batches of 10115 rows; job 42 starts at 1030 and retries 3 times in 2024.",
        "Print the sender line as Bahnhofstrasse 1, CH-8001 Zurich, Switzerland.",
        "Orders from Toronto, Canada (ON M5V 3L9) ship the same day.",
    ),
)

NEUTRAL = (
    "Sort the list of records by name and remove duplicates.",
    "Parse the CSV file and report the rows with missing fields.",
    "Merge two sorted arrays into one sorted array.",
    "Count the words in a text, ignoring case and punctuation.",
    "Return the longest common prefix of a list of strings.",
    "Rotate a matrix by 90 degrees clockwise.",
    "Group the events by user and return the latest event per user.",
    "Validate that every opening bracket has a matching closing bracket.",
    "Paginate the results: 20 items per page, pages numbered from 1.",
    "Retry a failed request up to three times with a growing delay.",
    "Compute the median of a stream of integers.",
    "Cache the results of the lookup for five minutes.",
    "Reject any password shorter than 12 characters.",
    "Convert the nested JSON document to a flat table.",
    "Find the shortest path between two nodes of a weighted graph.",
    "Rename the files so that their names are lowercase.",
    "Deduplicate the customer list by email address.",
    "Schedule the job every hour and skip it if the previous run is still going.",
    "Return the top ten products by number of orders.",
    "Write a function that checks whether a string is a palindrome.",
)


def briefings() -> list[dict[str, str]]:
    """The labelled briefings: id, kind, label, split, text (seeded, reproducible)."""
    rng = random.Random(SEED)
    rows: list[dict[str, str]] = []

    def wrap(snippet: str) -> str:
        parts = [rng.choice(LEADS), snippet, rng.choice(CLOSINGS)]
        return " ".join(part for part in parts if part)

    for kind, (assumed, explained) in SNIPPETS.items():
        for label, snippets in (("assumption", assumed), ("explained", explained)):
            for index, snippet in enumerate(snippets):
                rows.append(
                    {
                        "briefing_id": f"{kind}-{label}-{index:02d}",
                        "kind": kind,
                        "label": label,
                        "split": ("dev", "test")[index % 2],
                        "text": wrap(snippet),
                    }
                )
    for index, snippet in enumerate(NEUTRAL):
        rows.append(
            {
                "briefing_id": f"neutral-{index:02d}",
                "kind": "neutral",
                "label": "neutral",
                "split": ("dev", "test")[index % 2],
                "text": wrap(snippet),
            }
        )
    rng = random.Random(SEED + 1)
    for label, snippets in zip(("assumption", "explained"), ADDRESSES, strict=True):
        for index, snippet in enumerate(snippets):
            rows.append(
                {
                    "briefing_id": f"address-{label}-{index:02d}",
                    "kind": "address",
                    "label": label,
                    "split": ("dev", "test")[index % 2],
                    "text": wrap(snippet),
                }
            )
    return rows


def main() -> None:
    rows = briefings()
    OUTPUT.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(rows)} briefings -> {OUTPUT}")


if __name__ == "__main__":
    main()
