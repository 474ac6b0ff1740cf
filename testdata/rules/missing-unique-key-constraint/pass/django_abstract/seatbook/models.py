from seatbook.abstract_models import AbstractBooking


class Booking(AbstractBooking):
    pass
