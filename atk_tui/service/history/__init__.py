"""The store's history: an item's commits (`githistory`), the wait statistics (`stats`, over
`historyindex`), stuck work (`stuck`), when a question should be answered by (`deadlines`)."""
