from seatbook.models import Booking


class Checkout:
    def place(self, reference, seats):
        """A double-submitted checkout must book its seats once."""
        if Booking.objects.filter(reference=reference).exists():  # expect: check-then-insert
            raise ValueError("already booked")
        self.book(reference, seats)

    def book(self, reference, seats):
        Booking(reference=reference, seats=seats).save()
