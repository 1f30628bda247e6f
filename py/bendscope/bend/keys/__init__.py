"""The keyboard: key routing, arrow keys between cards, the help sheet's shortcuts."""
